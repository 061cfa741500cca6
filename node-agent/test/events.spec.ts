import { EventSender, MAX_BYTES_PER_CALL, MAX_EVENTS_PER_CALL, type NodeJobEvent, type SendResult, takeBatch, tokenEvents } from '../src/job-events';

/** A fake API: records each call, answers when the test says so. */
function fakeApi() {
  const calls: NodeJobEvent[][] = [];
  const froms: number[] = [];
  const answers: Array<(r: SendResult) => void> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const post = (events: NodeJobEvent[], from: number) => {
    calls.push(events);
    froms.push(from);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise<SendResult>((resolve) =>
      answers.push((r) => {
        inFlight--;
        resolve(r);
      }),
    );
  };
  const tick = () => new Promise((r) => setImmediate(r));
  return {
    calls,
    froms,
    post,
    maxInFlight: () => maxInFlight,
    async answer(r: SendResult = { kind: 'ok', stop: false }) {
      await tick();
      answers.shift()!(r);
      await tick();
    },
  };
}

const token = (text: string): NodeJobEvent => ({ type: 'token', text });

describe('sending a job’s events', () => {
  it('in order, one call in flight, what accumulated meanwhile in the next call, each placed by its first token event', async () => {
    const api = fakeApi();
    const sender = new EventSender(api.post);
    sender.push(token('a'));
    sender.push(token('b'));
    sender.push(token('c'));
    await api.answer();
    sender.push(token('d'));
    sender.push({ type: 'done', usage: { prompt_tokens: 3, completion_tokens: 4 }, stop_reason: 'stop' });
    const drained = sender.drain();
    await api.answer();
    await api.answer();
    expect(await drained).toBe('open');
    expect(api.calls).toEqual([
      [token('a')],
      [token('b'), token('c')],
      [token('d'), { type: 'done', usage: { prompt_tokens: 3, completion_tokens: 4 }, stop_reason: 'stop' }],
    ]);
    expect(api.maxInFlight()).toBe(1);
    expect(api.froms).toEqual([0, 1, 3]);
  });

  it('never more than 512 events or 256 KiB in one call', () => {
    const many = Array.from({ length: 1000 }, (_, i) => token(String(i)));
    expect(takeBatch(many)).toHaveLength(MAX_EVENTS_PER_CALL);
    expect(many).toHaveLength(1000 - MAX_EVENTS_PER_CALL);
    const big = Array.from({ length: 40 }, () => token('x'.repeat(16_000)));
    const batch = takeBatch(big);
    expect(Buffer.byteLength(JSON.stringify({ events: batch }))).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
    expect(batch.length + big.length).toBe(40);
    expect(batch.length).toBe(16);
  });

  it('long text is split into token events the spec accepts (no NUL, surrogate pairs kept whole)', () => {
    const text = `${'a'.repeat(16_383)}😀${'b'.repeat(10)}\u0000`;
    const events = tokenEvents(text);
    expect(events.map((e) => (e as { text: string }).text).join('')).toBe(text.replace('\u0000', ''));
    for (const e of events) expect((e as { text: string }).text.length).toBeLessThanOrEqual(16_384);
    expect((events[0] as { text: string }).text.endsWith('a')).toBe(true);
  });

  it('{stop: true} tells the generator once', async () => {
    const api = fakeApi();
    const onStop = jest.fn();
    const sender = new EventSender(api.post, { onStop });
    sender.push(token('a'));
    await api.answer({ kind: 'ok', stop: true });
    sender.push(token('b'));
    await api.answer({ kind: 'ok', stop: true });
    expect(onStop).toHaveBeenCalledTimes(1);
  });

  it('403/409: the job is lost, nothing more is sent', async () => {
    const api = fakeApi();
    const onLost = jest.fn();
    const sender = new EventSender(api.post, { onLost });
    sender.push(token('a'));
    sender.push(token('b'));
    await api.answer({ kind: 'lost', status: 409, message: 'Job r_1 has already ended' });
    sender.push(token('c'));
    expect(await sender.drain()).toBe('lost');
    expect(api.calls).toEqual([[token('a')]]);
    expect(onLost).toHaveBeenCalledWith(409, 'Job r_1 has already ended');
  });

  it('401: revoked', async () => {
    const api = fakeApi();
    const onRevoked = jest.fn();
    const sender = new EventSender(api.post, { onRevoked });
    sender.push(token('a'));
    await api.answer({ kind: 'revoked' });
    expect(sender.state).toBe('revoked');
    expect(onRevoked).toHaveBeenCalledTimes(1);
  });

  it('close(): the call in flight settles, the rest is never sent', async () => {
    const api = fakeApi();
    const sender = new EventSender(api.post);
    sender.push(token('a'));
    sender.push(token('b'));
    const closed = sender.close();
    sender.push(token('c'));
    await api.answer();
    await closed;
    expect(api.calls).toEqual([[token('a')]]);
    expect(sender.state).toBe('closed');
  });
});
