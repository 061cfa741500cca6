import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const PACKAGE = resolve(__dirname, '..');

/**
 * The pool build's backend detection (llama-rpc.mjs), run as it runs: in a process whose PATH holds fake
 * `nvcc` and `nvidia-smi` or not (the machine's own tools are kept off it).
 */
describe('llama-rpc.mjs: which llama.cpp backend the pool build builds', () => {
  let bin: string;
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'glob-fake-cuda-'));
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  const tool = (name: string, output: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' '${output}'\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const detect = (env: Record<string, string> = {}) => {
    const script = "import('./llama-rpc.mjs').then((m) => console.log(JSON.stringify({ ...m.detectBackend(), dir: m.buildDir() })))";
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: PACKAGE,
      encoding: 'utf8',
      env: { HOME: process.env.HOME!, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, ...env },
    });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as { backend: string; cuda: string | null; reason: string; dir: string };
  };

  it('without the CUDA toolkit: the CPU build, and it says why', () => {
    expect(detect()).toMatchObject({ backend: 'cpu', cuda: null, reason: 'no CUDA toolkit (nvcc) on PATH' });
  });

  it('with the toolkit but no NVIDIA GPU: still the CPU build (a CUDA build cannot run without the driver)', () => {
    tool('nvcc', 'Cuda compilation tools, release 12.4, V12.4.131');
    const found = detect();
    expect(found).toMatchObject({ backend: 'cpu', cuda: '12.4' });
    expect(found.reason).toMatch(/CUDA 12\.4 found, but no NVIDIA GPU/);
    expect(found.dir).not.toMatch(/-cuda$/);
  });

  it('with the toolkit and a GPU: the CUDA build, in a directory of its own; GLOB_LLAMA_BACKEND=cpu overrides', () => {
    tool('nvcc', 'Cuda compilation tools, release 12.4, V12.4.131');
    tool('nvidia-smi', 'GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-0c8f1a2b-1111-2222-3333-444455556666)');
    const found = detect();
    expect(found).toMatchObject({ backend: 'cuda', cuda: '12.4', reason: 'CUDA 12.4, NVIDIA GeForce RTX 4090' });
    expect(found.dir).toMatch(/llama\.cpp-[0-9a-f]{12}-cuda$/);
    expect(detect({ GLOB_LLAMA_BACKEND: 'cpu' })).toMatchObject({ backend: 'cpu', reason: 'GLOB_LLAMA_BACKEND=cpu' });
  });
});
