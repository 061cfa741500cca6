import { randomUUID } from 'node:crypto';
import type { Assignment } from '../../src/modules/nodes/node-job-store';
import { NodeSpeedService, SCORE_WARMUP_TOKENS } from '../../src/modules/nodes/node-speed.service';
import { ProviderNodesRepository } from '../../src/modules/nodes/provider-nodes.repository';
import { hardwareScore, LOWEST_HARDWARE_SCORE } from '../../src/modules/rewards/rewards';
import { startStack, type TestStack } from '../support/app';
import { ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';

/**
 * A node's measured speed, the platform's own figure its hardware score (and so its pay) follows: the jobs it ends at
 * once (a node serves many replies at a time) each count, and what the node's calls read of it does not grow with
 * the node's history.
 */
describe("a node's measured speed", () => {
  let stack: TestStack;
  let speed: NodeSpeedService;
  let nodes: ProviderNodesRepository;

  beforeAll(async () => {
    stack = await startStack();
    speed = stack.app.get(NodeSpeedService);
    nodes = stack.app.get(ProviderNodesRepository);
  }, 60_000);
  afterAll(() => stack?.close());

  /** A job of `nodeId` claimed `ms` ago, as the claim records it (only what the speed is measured by matters). */
  const job = (nodeId: string, ms: number) => ({ nodeId, claimedAt: Date.now() - ms, jobId: randomUUID() }) as unknown as Assignment;
  const measured = async (nodeId: string) =>
    (
      (await stack.db.query(`SELECT measured_tps, measured_tokens, hardware_score FROM nodes WHERE id = $1`, [nodeId])) as Array<{
        measured_tps: number | null;
        measured_tokens: string;
        hardware_score: string;
      }>
    )[0]!;

  it('counts every job that ends at the same time, and scores the node by the figures they add up to', async () => {
    const owner = await newUser(stack, 'speed-owner');
    const node = await ScriptedNode.pair(stack, owner);
    expect(await measured(node.id)).toMatchObject({ measured_tps: null, measured_tokens: '0' });

    // Sixteen replies end at once, each 100 tokens in a second: read-then-write would keep only some of them.
    await Promise.all(Array.from({ length: 16 }, () => speed.recordSpeed(job(node.id, 1000), 100, Date.now())));
    const after = await measured(node.id);
    expect(Number(after.measured_tokens)).toBe(1600);
    expect(after.measured_tps).toBeGreaterThan(50);
    expect(after.measured_tps).toBeLessThanOrEqual(100);
    // Past the warm-up (1,600 tokens ≥ SCORE_WARMUP_TOKENS), the score is the one the final figures give, whichever
    // job's end wrote last.
    expect(SCORE_WARMUP_TOKENS).toBeLessThanOrEqual(1600);
    expect(Number(after.hardware_score)).toBe(hardwareScore(after.measured_tps!, false));
  });

  it('keeps the lowest score until the warm-up is measured', async () => {
    const owner = await newUser(stack, 'speed-warmup');
    const node = await ScriptedNode.pair(stack, owner);
    await speed.recordSpeed(job(node.id, 100), 10, Date.now());
    const after = await measured(node.id);
    expect(after.measured_tokens).toBe('10');
    expect(Number(after.hardware_score)).toBe(LOWEST_HARDWARE_SCORE);
  });

  it("reads a node's state for its calls without counting its history", async () => {
    const owner = await newUser(stack, 'speed-history');
    const node = await ScriptedNode.pair(stack, owner);
    const state = await nodes.state(node.id);
    const row = await nodes.byId(node.id);
    // The state is the row less what its history adds up to: what the owner's views show, not what a claim needs.
    const { uptime, tasks_served, ...rest } = row!;
    expect(typeof uptime).toBe('number');
    expect(tasks_served).toBe(0);
    expect(state).toEqual(rest);
  });
});
