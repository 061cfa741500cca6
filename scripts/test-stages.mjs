#!/usr/bin/env node
// Runs the test stages of `make test` / `make test-fast` (each a make target) concurrently where they do not depend on
// each other, at most TEST_JOBS cores' worth at once (TEST_JOBS=1 runs them one by one). Each stage's output is kept
// until it ends, then printed whole (and written to .data/test-logs/<target>.log), so parallel stages never interleave.
// A failed stage is printed as soon as it ends and the exit status will be 1, but the other stages still run (all
// findings in one run), except those that need the failed one; TEST_FAIL_FAST=1 starts no stage after a failure.
// At the end: every stage's time and status, and the wall time.
//
//   node scripts/test-stages.mjs fast|full [stage ...]   (stage names: only those, still in their order)
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const logDir = join(root, '.data', 'test-logs');

/**
 * A stage: a make target, the stages it waits for (needs, after), and its weight (roughly the cores it keeps busy: the jest runs use two
 * workers). Stages start in list order as their dependencies finish and the weight fits under TEST_JOBS; the longest
 * come first so the short ones fill in beside them.
 */
const lint = [
  { name: 'lint-code', target: 'lint-code', weight: 1 },
  { name: 'typecheck', target: 'typecheck', weight: 1 },
  { name: 'format-check', target: 'format-check', weight: 1 },
  { name: 'dead-code', target: 'dead-code', weight: 1 },
  { name: 'generate-check', target: 'generate-check', weight: 1 },
  { name: 'lint-spec', target: 'lint-spec', weight: 1 },
];
const plans = {
  fast: {
    jobs: 3,
    stages: [
      { name: 'backend unit+contract', target: 'test-backend-fast', weight: 2 },
      { name: 'frontend jest', target: 'test-frontend', weight: 1 },
      ...lint,
      { name: 'node-agent', target: 'test-node-agent', weight: 1 },
    ],
  },
  full: {
    // One core's worth beside the backend's two jest workers: with more, its timing-bound tests (locks of seconds)
    // failed on a 2-core machine.
    jobs: 3,
    stages: [
      { name: 'backend (all)', target: 'test-backend', weight: 2 },
      { name: 'e2e build', target: 'test-e2e-build', weight: 1 },
      ...lint,
      { name: 'frontend jest', target: 'test-frontend', weight: 1 },
      { name: 'node-agent', target: 'test-node-agent', weight: 1 },
      { name: 'image', target: 'test-image', weight: 1 },
      // The desktop app's packages for every platform (test key), their contents checked; Playwright installs the .deb.
      { name: 'release', target: 'test-release', weight: 1 },
      // Playwright and the backend's jest both drive an API, a worker and llama.cpp: on 2 cores, one after the other.
      { name: 'e2e', target: 'test-e2e', weight: 2, needs: ['e2e build'], after: ['backend (all)', 'release'], env: { E2E_SKIP_BUILD: '1' } },
      // make dev, make serve and a paired agent on free ports, beside Playwright's stack (which holds the default ports).
      { name: 'readme paths', target: 'test-readme', weight: 1, needs: ['e2e build'], after: ['backend (all)'] },
    ],
  },
};

const [planName, ...only] = process.argv.slice(2);
const plan = plans[planName];
if (!plan) {
  console.error(`usage: node scripts/test-stages.mjs ${Object.keys(plans).join('|')} [stage ...]`);
  process.exit(2);
}
const stages = only.length ? plan.stages.filter((s) => only.includes(s.name) || only.includes(s.target)) : plan.stages;
const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? plan.jobs));
mkdirSync(logDir, { recursive: true });

const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const state = new Map(stages.map((s) => [s.name, { status: 'waiting', ms: 0, start: 0 }]));
let load = 0;
let failed = false;

const failFast = process.env.TEST_FAIL_FAST === '1';
// `needs`: stages that must have passed; `after`: stages that must have ended (only an order, for the cores' sake).
const ready = (s) =>
  (s.needs ?? []).every((name) => !state.has(name) || state.get(name).status === 'ok') &&
  (s.after ?? []).every((name) => !state.has(name) || ['ok', 'FAILED'].includes(state.get(name).status));
const color = process.stdout.isTTY ? { FORCE_COLOR: '1' } : {};

function run(stage) {
  const st = state.get(stage.name);
  st.status = 'running';
  st.start = Date.now();
  load += stage.weight;
  console.log(`▶ ${stage.name} (make ${stage.target}) started at ${seconds(st.start - started)}`);
  const chunks = [];
  const child = spawn('make', ['--no-print-directory', stage.target], {
    cwd: root,
    env: { ...process.env, ...color, ...stage.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => chunks.push(d));
  child.stderr.on('data', (d) => chunks.push(d));
  return new Promise((done) => {
    child.on('close', (code) => {
      load -= stage.weight;
      st.ms = Date.now() - st.start;
      st.status = code === 0 ? 'ok' : 'FAILED';
      if (code !== 0) failed = true;
      const output = Buffer.concat(chunks).toString();
      writeFileSync(join(logDir, `${stage.target}.log`), output);
      const rule = `── ${stage.name}: ${st.status === 'ok' ? 'ok' : 'FAILED'} in ${seconds(st.ms)} `;
      process.stdout.write(`\n${rule.padEnd(100, '─')}\n${output.trimEnd()}\n${'─'.repeat(100)}\n\n`);
      done();
    });
  });
}

// Every minute: what is still running (a long stage prints nothing until it ends).
const heartbeat = setInterval(() => {
  const running = stages
    .filter((s) => state.get(s.name).status === 'running')
    .map((s) => `${s.name} (${seconds(Date.now() - state.get(s.name).start)})`);
  if (running.length) console.log(`… ${seconds(Date.now() - started)}: running ${running.join(', ')}`);
}, 60_000);

const running = new Set();
for (;;) {
  if (!(failed && failFast)) {
    for (const s of stages) {
      if (state.get(s.name).status !== 'waiting' || !ready(s)) continue;
      // A stage heavier than the limit still runs, alone.
      if (load > 0 && load + s.weight > jobs) continue;
      const p = run(s).then(() => running.delete(p));
      running.add(p);
    }
  }
  if (running.size === 0) break;
  await Promise.race(running);
}
clearInterval(heartbeat);

console.log(`Stages (at most ${jobs} cores' worth at once):`);
for (const s of stages) {
  const st = state.get(s.name);
  const status = st.status === 'waiting' ? 'not run' : st.status;
  console.log(`  ${s.name.padEnd(24)} ${status.padEnd(8)} ${st.ms ? seconds(st.ms).padStart(9) : ''}`);
}
console.log(
  `${planName === 'fast' ? 'make test-fast' : 'make test'}: ${failed ? 'FAILED' : 'all stages passed'} in ${seconds(Date.now() - started)} (logs: .data/test-logs/)`,
);
process.exit(failed ? 1 : 0);
