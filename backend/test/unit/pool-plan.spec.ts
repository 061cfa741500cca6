import { proportional } from '../../src/common/proportional';
import { NO_HOLDER, UNKNOWN_MODEL, offeredMemory, planPool, type PlanNode } from '../../src/modules/nodes/pool-plan';

const GiB = 2 ** 30;
const node = (id: string, memoryGiB: number, extra: Partial<PlanNode> = {}): PlanNode => ({
  id,
  memoryBytes: memoryGiB * GiB,
  memoryPercent: 50,
  vramBytes: null,
  gpu: null,
  gpuPercent: 60,
  files: [],
  ...extra,
});
/** What the platform knows of the model, and a member's report of holding its file. */
const facts = { bytes: 10 * GiB, layers: 80 };
const file = { model_id: 'big', ...facts };

describe('pool planning', () => {
  it('splits whole numbers in proportion, adding up exactly, remainders to the largest fractions first', () => {
    expect(proportional(80, [2, 1, 1])).toEqual([40, 20, 20]);
    expect(proportional(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(proportional(7, [5, 3, 2])).toEqual([4, 2, 1]);
    expect(proportional(5, [0, 0])).toEqual([3, 2]);
    for (const [total, weights] of [
      [1001, [3, 7, 11, 13]],
      [3, [1e12, 1, 1]],
      [0, [1, 2]],
    ] as const) {
      const parts = proportional(total, [...weights]);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
      expect(parts.every((p) => Number.isInteger(p) && p >= 0)).toBe(true);
    }
  });

  it('offers GPU memory where there is a GPU, else the memory share', () => {
    expect(offeredMemory(node('a', 16))).toBe(8 * GiB);
    expect(offeredMemory(node('b', 16, { gpu: 'RTX', vramBytes: 24 * GiB }))).toBe(Math.floor(24 * GiB * 0.6));
    expect(offeredMemory(node('c', 16, { gpu: 'RTX', vramBytes: 24 * GiB, gpuPercent: 0 }))).toBe(8 * GiB);
  });

  it('the holder of the file coordinates and takes the first layers; the rest follow in the owner’s order', () => {
    const plan = planPool('big', facts, [node('s1', 8), node('c', 16, { files: [file] }), node('s2', 8)], null);
    expect(plan.coordinatorId).toBe('c');
    expect(plan.order).toEqual(['c', 's1', 's2']);
    expect([...plan.layers.values()]).toEqual([40, 20, 20]);
    expect(plan.problem).toBeNull();
  });

  it('keeps its coordinator while it holds the file; otherwise the holder offering the most memory', () => {
    const members = [node('a', 8, { files: [file] }), node('b', 32, { files: [file] }), node('c', 8)];
    expect(planPool('big', facts, members, null).coordinatorId).toBe('b');
    expect(planPool('big', facts, members, 'a').coordinatorId).toBe('a');
    expect(planPool('big', facts, members, 'c').coordinatorId).toBe('b');
  });

  it('plans from the platform’s numbers: a report of another size or layer count is not the model’s file', () => {
    const other = [{ model_id: 'big', bytes: GiB, layers: 80 }];
    const fewer = [{ model_id: 'big', bytes: 10 * GiB, layers: 2 }];
    const plan = planPool('big', facts, [node('a', 64, { files: other }), node('b', 64, { files: fewer }), node('c', 8, { files: [file] })], null);
    expect(plan).toMatchObject({ coordinatorId: 'c', modelLayers: 80, modelBytes: 10 * GiB, problem: null });
    expect(planPool('big', facts, [node('a', 64, { files: other }), node('b', 8)], null)).toMatchObject({
      coordinatorId: null,
      modelLayers: 80,
      problem: NO_HOLDER,
    });
  });

  it('plans nothing while the platform does not know the model’s size and layers, whatever members report', () => {
    expect(planPool('big', null, [node('a', 64, { files: [file] }), node('b', 8)], null)).toMatchObject({
      coordinatorId: null,
      modelLayers: null,
      modelBytes: null,
      problem: UNKNOWN_MODEL,
    });
  });

  it('says what is wrong: nobody holds the file, or the members offer less than the model', () => {
    expect(planPool('big', facts, [node('a', 8), node('b', 8)], null)).toMatchObject({
      coordinatorId: null,
      problem: expect.stringMatching(/No member/),
    });
    expect(planPool('big', facts, [node('a', 4, { files: [file] }), node('b', 4)], null).problem).toBe(
      "The members offer 4.0 GB in all, less than the model's 10.0 GB: raise their memory allocation or add a node.",
    );
  });
});
