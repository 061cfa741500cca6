import { fairPriority, MAX_PRIORITY } from '../../src/modules/inference/fair-queue';

describe('fairPriority', () => {
  it('is 1 + the replies of the same user and model already waiting or running', () => {
    expect(fairPriority(0)).toBe(1);
    expect(fairPriority(1)).toBe(2);
    // A burst of 20 gets 1..20: another user's first reply (1) goes before the burst's second (2).
    expect(Array.from({ length: 20 }, (_, open) => fairPriority(open))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('never 0 (BullMQ takes unprioritized jobs before every prioritized one) and never past BullMQ’s highest priority', () => {
    expect(fairPriority(-3)).toBe(1);
    expect(fairPriority(MAX_PRIORITY)).toBe(MAX_PRIORITY);
    expect(fairPriority(10 * MAX_PRIORITY)).toBe(MAX_PRIORITY);
  });
});
