import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullFiles } from '@glob/engine/model-files';
import { startFileServer, type FileServer } from '../support/file-server';

/**
 * A pull stopped from inside the process (the agent's Ctrl-C, a changed allocation) keeps what it fetched: the
 * next pull resumes from there. (A killed process resumes too: model-pulls.spec.ts.)
 */
describe('a pull stopped by its signal', () => {
  let dir: string;
  let mirror: FileServer;
  const size = 24 * 1024 * 1024;
  const data = randomBytes(size);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-resume-'));
    await writeFile(join(dir, 'model.gguf'), data);
    mirror = await startFileServer(dir, { bytesPerSecond: 8 * 1024 * 1024 });
  });
  afterAll(async () => {
    await mirror?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('resumes where it stopped, fetching only the rest', async () => {
    const out = join(dir, 'pulled');
    const file = { name: 'model.gguf', url: `${mirror.url}/model.gguf`, size_bytes: size, sha256: createHash('sha256').update(data).digest('hex') };
    const stop = new AbortController();
    const first = pullFiles({
      label: 'm',
      files: [file],
      dir: out,
      signal: stop.signal,
      log: (line) => {
        if (/Pulling m: [5-9]\d %/.test(line)) stop.abort(new Error('stopped'));
      },
    });
    await expect(first).rejects.toThrow('stopped');
    expect(await readdir(out)).toEqual(['model.gguf.ipull']);

    const lines: string[] = [];
    const second = await pullFiles({ label: 'm', files: [file], dir: out, log: (l) => lines.push(l) });
    expect(second.ok).toBe(true);
    // Plain progress lines: at most one per 10 %, and 100 % once.
    expect(lines.filter((l) => /Pulling m: 100 %/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /Pulling m: \d+ %/.test(l)).length).toBeLessThanOrEqual(11);
    const kept = Number(/Resuming m: ([\d.]+) MB/.exec(lines.join('\n'))![1]) * 1024 ** 2;
    expect(kept).toBeGreaterThan(size * 0.4);
    expect(second.fetchedBytes).toBeLessThanOrEqual(size - kept + 1);
    // In all, the mirror sent the file once plus what was in flight at the stop (a few 2 MiB chunks, more on a busy
    // machine), less than starting over would have cost: the whole file again after what the first pull kept.
    expect(mirror.sent.get('model.gguf')!).toBeLessThan(size + kept);
  }, 60_000);
});
