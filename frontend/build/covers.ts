import type { BlogCategory, BlogPost } from '../src/content/types';

/** Accent pair per blog category. */
const PALETTE: Record<BlogCategory, [string, string]> = {
  announcements: ['#c8f547', '#4fd8ff'],
  'token-economy': ['#ffc857', '#c8f547'],
  tutorials: ['#4fd8ff', '#8f7bff'],
  releases: ['#5ce6a1', '#4fd8ff'],
  technical: ['#8f7bff', '#4fd8ff'],
  community: ['#ff8fa3', '#ffc857'],
};

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * A blog cover drawn from the post itself (slug seeds the layout, category picks the colours): a small
 * network of nodes over a gradient. 16:9, a few KB, no text to translate or fonts to load.
 */
export function coverSvg(post: Pick<BlogPost, 'slug' | 'category'>): string {
  let s = hash(post.slug);
  const rand = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const [a, b] = PALETTE[post.category];
  const nodes = Array.from({ length: 14 }, () => ({ x: 80 + rand() * 1440, y: 70 + rand() * 760, r: 6 + rand() * 12 }));
  const links: string[] = [];
  nodes.forEach((n, i) => {
    const near = nodes
      .map((m, j) => ({ j, d: Math.hypot(m.x - n.x, m.y - n.y) }))
      .filter((m) => m.j > i)
      .sort((p, q) => p.d - q.d)
      .slice(0, 2);
    for (const { j } of near) {
      const m = nodes[j]!;
      links.push(`<line x1="${n.x.toFixed(0)}" y1="${n.y.toFixed(0)}" x2="${m.x.toFixed(0)}" y2="${m.y.toFixed(0)}"/>`);
    }
  });
  const dots = nodes.map((n, i) => `<circle cx="${n.x.toFixed(0)}" cy="${n.y.toFixed(0)}" r="${n.r.toFixed(1)}" fill="${i % 3 ? a : b}"/>`).join('');
  const glow = nodes
    .filter((_, i) => i % 4 === 0)
    .map((n) => `<circle cx="${n.x.toFixed(0)}" cy="${n.y.toFixed(0)}" r="${(n.r * 6).toFixed(0)}" fill="url(#h)"/>`)
    .join('');
  const cx = (400 + rand() * 800).toFixed(0);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1600 900" width="1600" height="900">
<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0c1018"/><stop offset="1" stop-color="#07090e"/></linearGradient>
<radialGradient id="g" cx="${cx}" cy="450" r="700" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="${b}" stop-opacity=".22"/><stop offset="1" stop-color="${b}" stop-opacity="0"/></radialGradient>
<radialGradient id="h"><stop offset="0" stop-color="${a}" stop-opacity=".35"/><stop offset="1" stop-color="${a}" stop-opacity="0"/></radialGradient>
<pattern id="p" width="80" height="80" patternUnits="userSpaceOnUse"><path d="M80 0H0V80" fill="none" stroke="#ffffff" stroke-opacity=".04"/></pattern></defs>
<rect width="1600" height="900" fill="url(#bg)"/><rect width="1600" height="900" fill="url(#p)"/><rect width="1600" height="900" fill="url(#g)"/>
${glow}<g stroke="${a}" stroke-opacity=".35" stroke-width="3">${links.join('')}</g>${dots}
</svg>
`;
}
