import { createLog, jobFields, textLine } from '../src/logging';

describe('the agent log', () => {
  const capture = (format: 'auto' | 'json' | 'text', tty: boolean) => {
    const lines: string[] = [];
    const log = createLog(format, { tty, destination: { write: (s: string) => void lines.push(s) } });
    return { lines, log };
  };

  it('writes one JSON object per line with level, time, msg and the fields given (auto: when stdout is not a terminal)', () => {
    for (const { lines, log } of [capture('json', true), capture('auto', false)]) {
      log('Job j1: 3 tokens in 0.1 s', { ...jobFields({ job_id: 'j1', request_id: 'req-12345678' }), tokens: 3 });
      log('Paired as pc');
      expect(lines).toHaveLength(2);
      const [job, plain] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(job).toMatchObject({ level: 'info', msg: 'Job j1: 3 tokens in 0.1 s', job_id: 'j1', request_id: 'req-12345678', tokens: 3 });
      expect(new Date(job!.time as string).getTime()).toBeGreaterThan(0);
      expect(plain).toMatchObject({ level: 'info', msg: 'Paired as pc', name: 'glob-node' });
      expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    }
  });

  it('writes short lines for people in a terminal: the clock, the text, and a job line ends with its request id', () => {
    const { lines } = capture('auto', true);
    const out = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      createLog('text', { tty: false })('Paired as pc');
      expect(out).toHaveBeenCalledWith(expect.stringMatching(/^\d\d:\d\d:\d\d Paired as pc$/));
    } finally {
      out.mockRestore();
    }
    expect(lines).toEqual([]);
    const at = new Date(2026, 0, 2, 3, 4, 5);
    expect(textLine('Job j1 failed: x', jobFields({ job_id: 'j1', request_id: 'req-12345678' }), at)).toBe(
      '03:04:05 Job j1 failed: x (request req-12345678)',
    );
    expect(textLine('Job j2 failed: x', jobFields({ job_id: 'j2' }), at)).toBe('03:04:05 Job j2 failed: x');
  });
});
