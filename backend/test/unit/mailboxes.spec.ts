import { mailboxOf } from '../../src/modules/accounts/mailboxes';
import { BoundedSemaphore } from '../../src/modules/accounts/passwords';

describe('mailboxOf: the mailbox an address delivers to', () => {
  it.each([
    ['Ada@Example.com', 'ada@example.com'],
    ['ada+newsletter@example.com', 'ada@example.com'],
    ['a.d.a+x@gmail.com', 'ada@gmail.com'],
    ['A.DA@googlemail.com', 'ada@gmail.com'],
    // Dots matter outside Gmail.
    ['a.da@example.com', 'a.da@example.com'],
    // A leading plus is part of the name, not a tag.
    ['+ada@example.com', '+ada@example.com'],
  ])('%s → %s', (email, mailbox) => {
    expect(mailboxOf(email)).toBe(mailbox);
  });
});

describe('BoundedSemaphore', () => {
  it('runs at most `concurrency` tasks at once, queues up to the bound, refuses beyond it, and serves the queue in order', async () => {
    const gate = new BoundedSemaphore(1, 2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const task = (n: number) => () =>
      new Promise<number>((resolve) => {
        running++;
        peak = Math.max(peak, running);
        releases.push(() => {
          running--;
          order.push(n);
          resolve(n);
        });
      });
    const runs = [1, 2, 3, 4].map((n) => gate.run(task(n)));
    // The fourth finds one running and two waiting: refused at once, without running.
    await expect(runs[3]).resolves.toEqual({ ok: false });
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setImmediate(r));
      releases.shift()!();
    }
    await expect(Promise.all(runs.slice(0, 3))).resolves.toEqual([1, 2, 3].map((value) => ({ ok: true, value })));
    expect(order).toEqual([1, 2, 3]);
    expect(peak).toBe(1);
    // Slots are free again.
    await expect(gate.run(async () => 5)).resolves.toEqual({ ok: true, value: 5 });
  });
});
