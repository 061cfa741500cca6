// The hero animation: devices of the network (nodes), their links, and data pulses carrying model shards.
// draw(ctx, w, h, t) with t in [0, 1): the loop is seamless because every motion is periodic in t.
(function () {
  const TAU = Math.PI * 2;
  function rng(seed) {
    let s = seed >>> 0;
    return () => (s = (s * 1664525 + 1013904223) >>> 0) / 4294967296;
  }
  const r = rng(42);
  const nodes = [];
  // Nodes on a tilted globe-like ellipse band plus a few inner ones.
  for (let i = 0; i < 26; i++) {
    const a = r() * TAU;
    const rad = 0.25 + r() * 0.75;
    nodes.push({
      x: 0.5 + Math.cos(a) * rad * 0.42,
      y: 0.5 + Math.sin(a) * rad * 0.36,
      phase: r(),
      size: 2.5 + r() * 3.5,
      shard: Math.floor(r() * 4),
    });
  }
  const edges = [];
  for (let i = 0; i < nodes.length; i++) {
    const d = nodes
      .map((n, j) => [j, Math.hypot(n.x - nodes[i].x, (n.y - nodes[i].y) * 1.2)])
      .filter(([j]) => j !== i)
      .sort((a, b) => a[1] - b[1]);
    for (const [j] of d.slice(0, 3)) if (!edges.some((e) => (e[0] === j && e[1] === i) || (e[0] === i && e[1] === j))) edges.push([i, j]);
  }
  const pulses = edges.map((e, k) => ({ edge: e, offset: (k * 0.618) % 1, speed: 1 + (k % 3), dir: k % 2 }));
  const SHARD = ['#c8f547', '#4fd8ff', '#8f7bff', '#ffb86b'];
  // The model in the middle hands one shard to one device of each colour (the nearest of that colour).
  const hubs = [0, 1, 2, 3]
    .map(
      (s) =>
        nodes
          .map((n, i) => [i, n])
          .filter(([, n]) => n.shard === s)
          .sort((a, b) => Math.hypot(a[1].x - 0.5, a[1].y - 0.5) - Math.hypot(b[1].x - 0.5, b[1].y - 0.5))[0]?.[0],
    )
    .filter((i) => i !== undefined);

  window.drawScene = function (ctx, w, h, t) {
    ctx.fillStyle = '#05070b';
    ctx.fillRect(0, 0, w, h);
    // soft glows
    let g = ctx.createRadialGradient(w * 0.5, h * 0.5, 0, w * 0.5, h * 0.5, w * 0.5);
    g.addColorStop(0, 'rgba(79,216,255,0.13)');
    g.addColorStop(1, 'rgba(79,216,255,0)');
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, w, h);
    // globe outline, slowly rotating meridians
    ctx.save();
    ctx.translate(w / 2, h / 2);
    ctx.strokeStyle = 'rgba(200,245,71,0.12)';
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    ctx.ellipse(0, 0, w * 0.42, h * 0.42 * 1.0, 0, 0, TAU);
    ctx.stroke();
    for (let m = 0; m < 6; m++) {
      const k = Math.cos((m / 6 + t / 6) * TAU);
      ctx.beginPath();
      ctx.ellipse(0, 0, Math.abs(k) * w * 0.42, h * 0.42, 0, 0, TAU);
      ctx.strokeStyle = `rgba(79,216,255,${0.05 + 0.05 * Math.abs(k)})`;
      ctx.stroke();
    }
    for (let p = 1; p < 4; p++) {
      const yy = (p / 4 - 0.5) * h * 0.84;
      const rx = Math.sqrt(Math.max(0, 1 - (yy / (h * 0.42)) ** 2)) * w * 0.42;
      ctx.beginPath();
      ctx.ellipse(0, yy, rx, 6, 0, 0, TAU);
      ctx.strokeStyle = 'rgba(79,216,255,0.06)';
      ctx.stroke();
    }
    ctx.restore();
    const P = (n) => [n.x * w, n.y * h];
    // links
    for (const [a, b] of edges) {
      const [x1, y1] = P(nodes[a]);
      const [x2, y2] = P(nodes[b]);
      ctx.strokeStyle = 'rgba(163,173,194,0.16)';
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x1, y1);
      ctx.lineTo(x2, y2);
      ctx.stroke();
    }
    // pulses travelling along links
    for (const p of pulses) {
      const [a, b] = p.dir ? [p.edge[1], p.edge[0]] : p.edge;
      const u = (p.offset + t * p.speed) % 1;
      const [x1, y1] = P(nodes[a]);
      const [x2, y2] = P(nodes[b]);
      const x = x1 + (x2 - x1) * u;
      const y = y1 + (y2 - y1) * u;
      const color = SHARD[nodes[a].shard];
      const alpha = Math.sin(u * Math.PI);
      ctx.strokeStyle = color;
      ctx.globalAlpha = 0.55 * alpha;
      ctx.lineWidth = 2;
      ctx.beginPath();
      const tail = 0.12;
      const u0 = Math.max(0, u - tail);
      ctx.moveTo(x1 + (x2 - x1) * u0, y1 + (y2 - y1) * u0);
      ctx.lineTo(x, y);
      ctx.stroke();
      ctx.globalAlpha = alpha;
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.arc(x, y, 2.6, 0, TAU);
      ctx.fill();
      ctx.globalAlpha = 1;
    }
    // shards leaving the model for their devices
    hubs.forEach((i, k) => {
      const [x2, y2] = P(nodes[i]);
      const x1 = w / 2,
        y1 = h / 2;
      ctx.strokeStyle = SHARD[nodes[i].shard];
      ctx.globalAlpha = 0.28;
      ctx.setLineDash([4, 6]);
      ctx.lineWidth = 1.4;
      ctx.beginPath();
      ctx.moveTo(x1, y1);
      ctx.lineTo(x2, y2);
      ctx.stroke();
      ctx.setLineDash([]);
      for (const lag of [0, 0.5]) {
        const u = (t * 2 + k / 4 + lag) % 1;
        ctx.globalAlpha = Math.sin(u * Math.PI);
        ctx.fillStyle = SHARD[nodes[i].shard];
        ctx.beginPath();
        ctx.arc(x1 + (x2 - x1) * u, y1 + (y2 - y1) * u, 3.2, 0, TAU);
        ctx.fill();
      }
      ctx.globalAlpha = 1;
    });
    // nodes
    for (const n of nodes) {
      const [x, y] = P(n);
      const beat = 0.5 + 0.5 * Math.sin((t + n.phase) * TAU);
      const color = SHARD[n.shard];
      g = ctx.createRadialGradient(x, y, 0, x, y, n.size * 5);
      g.addColorStop(0, color + '55');
      g.addColorStop(1, color + '00');
      ctx.fillStyle = g;
      ctx.beginPath();
      ctx.arc(x, y, n.size * (4 + beat * 1.5), 0, TAU);
      ctx.fill();
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.arc(x, y, n.size, 0, TAU);
      ctx.fill();
    }
    // centre: the model, four shards orbiting
    const cx = w / 2,
      cy = h / 2;
    ctx.fillStyle = '#0b0f17';
    ctx.strokeStyle = 'rgba(238,241,247,0.35)';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.arc(cx, cy, 34, 0, TAU);
    ctx.fill();
    ctx.stroke();
    for (let s = 0; s < 4; s++) {
      const a0 = (s / 4 + t) * TAU;
      ctx.strokeStyle = SHARD[s];
      ctx.lineWidth = 6;
      ctx.lineCap = 'round';
      ctx.beginPath();
      ctx.arc(cx, cy, 24, a0 + 0.18, a0 + TAU / 4 - 0.18);
      ctx.stroke();
    }
    ctx.fillStyle = '#eef1f7';
    ctx.font = '600 11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText('LLM', cx, cy);
  };
})();
