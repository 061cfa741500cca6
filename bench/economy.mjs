// GLOB earned per GLOB spent, through the real API and settlement: (a) honest traffic (a customer's bought GLOB to
// another person's node), (b) a self-dealing pair with welcome bonus only (one account's requests to the other's
// node), (c) the same pair with bought GLOB. Figures: what the requester spent, what the node's owner was paid (and
// how much of it as bonus), and how the pair's transferable GLOB moved. Rewards are paid as soon as they are due here
// (REWARD_SETTLEMENT_HOURS=0); the cost of checks is in bench/trust.mjs.
// Usage: node bench/economy.mjs [replies] [words]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { benchNode, benchUser, root, startBackend, table } from './lib.mjs';

const REPLIES = Number(process.argv[2] ?? 20);
const WORDS = Number(process.argv[3] ?? 1);
const MODEL = 'glob-tiny-chat';
const modelsDir = join(root, '.data/models');
if (!existsSync(join(modelsDir, 'glob-tiny-chat.gguf'))) spawnSync('npm', ['run', 'model:tiny', '-w', 'backend'], { cwd: root, stdio: 'inherit' });

const backend = await startBackend({
  NODE_ENV: 'development',
  LOG_LEVEL: 'log',
  PAYMENTS_TEST_MODE: 'true',
  WORKER_MODELS: 'none',
  MODELS_DIR: modelsDir,
  NODE_RATE_LIMIT: '1000000',
  HEARTBEAT_SECONDS: '30',
  REWARD_SETTLEMENT_HOURS: '0',
  REWARD_SETTLE_INTERVAL_MS: '200',
  // A small welcome bonus, so that the bought GLOB is reached after a few replies; checks are trust.mjs's subject.
  WELCOME_BONUS_GLOB: '100',
  SPOT_CHECK_FIRST: '0',
  SPOT_CHECK_PERCENT: '0',
});
const json = { 'content-type': 'application/json' };
const get = async (user, path) => (await fetch(`${backend.base}${path}`, { headers: user.auth })).json();
const funds = async (user) => {
  const w = await get(user, `/api/wallet/${user.id}`);
  return { balance: w.balance, transferable: w.transferable_balance, bonus: w.bonus_balance, pending: w.pending_earnings };
};
const buy = (user) =>
  fetch(`${backend.base}/api/wallet/${user.id}/purchase`, {
    method: 'POST',
    headers: { ...json, ...user.auth },
    body: JSON.stringify({ package_id: 'starter', amount: 1000, price: 10 }),
  });
let seq = 0;
/** One reply of `requester` that `node` serves with WORDS words (the node claims it and sends the text). */
async function reply(requester, node) {
  const streamId = `eco_${Date.now()}_${++seq}`;
  const started = fetch(`${backend.base}/api/inference/stream/start`, {
    method: 'POST',
    headers: { ...json, ...requester.auth },
    body: JSON.stringify({ streamId, modelId: MODEL, prompt: 'Count for me', params: { max_tokens: 64 } }),
  }).then((r) => r.text());
  const claim = await fetch(`${backend.base}/api/nodes/jobs/claim`, {
    method: 'POST',
    headers: node.auth,
    body: JSON.stringify({ wait_seconds: 5 }),
  });
  if (claim.status !== 200) throw new Error(`claim answered ${claim.status}; the reply: ${await started}`);
  const job = await claim.json();
  const text = Array.from({ length: WORDS }, (_, i) => ` word${i}`).join('');
  const events = [
    { type: 'token', text },
    { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'stop' },
  ];
  await fetch(`${backend.base}/api/nodes/jobs/${job.job_id}/events`, { method: 'POST', headers: node.auth, body: JSON.stringify({ events }) });
  await started;
}
/** Waits until nothing is pending for `owner` (the API's settlement timer has paid it). */
async function settled(owner) {
  for (let i = 0; i < 200 && (await funds(owner)).pending > 0; i++) await new Promise((r) => setTimeout(r, 100));
}

try {
  // Every node is paired (and its model proven by its file) before any of them asks for work.
  const people = {};
  for (const name of ['honest-owner', 'customer', 'bonus-owner', 'bonus-second', 'bought-owner', 'bought-second']) {
    people[name] = await benchUser(backend, name);
  }
  const nodeOf = async (owner) =>
    benchNode(backend, owner, { name: `${owner.email.split('@')[0]}-node`, model: MODEL, modelPath: join(modelsDir, 'glob-tiny-chat.gguf') });
  const nodes = {
    honest: await nodeOf(people['honest-owner']),
    bonus: await nodeOf(people['bonus-owner']),
    bought: await nodeOf(people['bought-owner']),
  };
  await buy(people.customer);
  await buy(people['bought-second']);
  const rows = [];
  for (const [label, requester, owner, node, spendBonus] of [
    ['honest traffic (bought GLOB)', people.customer, people['honest-owner'], nodes.honest, true],
    ['self-dealing pair, bonus only', people['bonus-second'], people['bonus-owner'], nodes.bonus, false],
    ['self-dealing pair, bought GLOB', people['bought-second'], people['bought-owner'], nodes.bought, true],
  ]) {
    // Bought GLOB is spent only once the welcome bonus is gone: move the bonus out of the way by spending it first.
    if (spendBonus) {
      while ((await funds(requester)).bonus > 0) await reply(requester, node);
      await settled(owner);
    }
    const [r0, o0] = [await funds(requester), await funds(owner)];
    for (let i = 0; i < REPLIES; i++) await reply(requester, node);
    await settled(owner);
    const [r1, o1] = [await funds(requester), await funds(owner)];
    const spent = r0.balance - r1.balance;
    const earned = o1.balance - o0.balance;
    rows.push({
      scenario: label,
      replies: REPLIES,
      spent_glb: spent.toFixed(3),
      paid_glb: earned.toFixed(3),
      paid_per_spent: (earned / spent).toFixed(3),
      paid_as_bonus: (o1.bonus - o0.bonus).toFixed(3),
      pair_transferable_change: (r1.transferable + o1.transferable - r0.transferable - o0.transferable).toFixed(3),
    });
  }
  console.log(`\nGLOB paid to a node's owner per GLOB its requester spent (${REPLIES} replies of ${WORDS} word(s) each)`);
  table(rows);
} finally {
  await backend.stop();
}
