import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The supervisor of `make serve` (scripts/lib.mjs start with restart) on a real child process. */
describe('make serve supervisor', () => {
  it('starts a child that was killed again (logged), and stops everything on SIGTERM', async () => {
    const driver = spawn(process.execPath, [join(__dirname, '..', 'support', 'supervised.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    driver.stdout!.on('data', (d) => (out += d));
    driver.stderr!.on('data', (d) => (out += d));
    const pids = () => [...out.matchAll(/child up (\d+)/g)].map((m) => Number(m[1]));
    const waitFor = async (ok: () => boolean, what: string) => {
      for (const deadline = Date.now() + 10_000; !ok();) {
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitFor(() => pids().length === 1, 'the first child');
      const first = pids()[0]!;
      process.kill(first, 'SIGKILL');
      await waitFor(() => pids().length === 2, 'the restarted child');
      expect(out).toMatch(/child exited \(SIGKILL\)/);
      expect(out).toMatch(/child: restarting in 1 s/);
      const second = pids()[1]!;
      expect(second).not.toBe(first);

      driver.kill('SIGTERM');
      const code = await new Promise((r) => driver.once('exit', r));
      expect(code).toBe(0);
      // The child went with it.
      expect(() => process.kill(second, 0)).toThrow();
    } finally {
      if (driver.exitCode === null) driver.kill('SIGKILL');
    }
  });
});
