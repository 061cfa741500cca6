import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLog, jobFields, textLine, withLogFile } from '../src/logging';

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

  it('the desktop app also keeps its lines in a file of its own (0600), started afresh beside its last copy past the limit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'glob-log-'));
    try {
      const file = join(dir, 'node', 'desktop.log');
      const { lines, log } = capture('json', true);
      const both = withLogFile(log, file);
      both('Serving glob-tiny-chat with 1 thread');
      both('Job j1: 3 tokens in 0.1 s', jobFields({ job_id: 'j1', request_id: 'req-1' }));
      expect(lines).toHaveLength(2); // stdout has them as before
      const written = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(written).toHaveLength(2);
      expect(written[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z Serving glob-tiny-chat with 1 thread$/);
      expect(written[1]).toMatch(/Job j1: 3 tokens in 0\.1 s \(request req-1\)$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      writeFileSync(file, 'x'.repeat(200));
      withLogFile(log, file, 100)('After the limit');
      expect(readFileSync(`${file}.1`, 'utf8')).toBe('x'.repeat(200));
      expect(readFileSync(file, 'utf8')).toMatch(/After the limit\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
