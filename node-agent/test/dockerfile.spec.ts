import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';

const ROOT = resolve(__dirname, '..', '..');

/** A Dockerfile (path from the repository's root), parsed. */
const parsed = (file: string) => DockerfileParser.parse(readFileSync(join(ROOT, file), 'utf8'));

/** The default of an ARG declared before the first FROM. */
const initialArg = (dockerfile: ReturnType<typeof parsed>, name: string) =>
  dockerfile
    .getInitialARGs()
    .map((a) => a.getProperty())
    .find((p) => p?.getName() === name)
    ?.getValue();

/**
 * The images' Dockerfiles, checked without a Docker engine (CI machines may have none): the Docker language
 * server's own validator, every COPY source present in the build context (the repository's root), every workspace's
 * package.json copied before `npm ci` (which refuses a lockfile whose workspaces are missing), and the node image's
 * promises: non-root, the credential and models on a volume, the agent as entry point, a CPU and a CUDA variant.
 */
describe.each(['Dockerfile', 'node-agent/Dockerfile'])('%s', (file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const dockerfile = DockerfileParser.parse(text);
  const instructions = dockerfile.getInstructions();

  it('passes the Dockerfile validator with no finding', () => {
    expect(validate(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('copies only what the repository has, and every workspace manifest before npm ci', () => {
    const copies = instructions.filter((i) => i.getKeyword() === 'COPY' && !/--from=/.test(i.getTextContent()));
    for (const copy of copies) {
      const args = copy.getArguments().map((a) => a.getValue());
      for (const source of args.slice(0, -1)) expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
    }
    const npmCi = instructions.findIndex((i) => /npm ci\b/.test(i.getTextContent()));
    expect(npmCi).toBeGreaterThan(0);
    const copiedBefore = copies
      .filter((c) => instructions.indexOf(c) < npmCi)
      .flatMap((c) => c.getArguments().map((a) => a.getValue()))
      .join(' ');
    const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
    for (const w of workspaces) expect(copiedBefore).toContain(`${w}/package.json`);
  });
});

describe('the node image', () => {
  const dockerfile = parsed('node-agent/Dockerfile');
  const froms = dockerfile.getFROMs();
  const arg = (name: string) => initialArg(dockerfile, name);
  const last = froms.at(-1)!;
  const final = dockerfile.getInstructions().filter((i) => i.getRange().start.line > last.getRange().start.line);
  const text = (keyword: string) => final.filter((i) => i.getKeyword() === keyword).map((i) => i.getArgumentsContent() ?? '');

  it('runs on Node’s image by default, on NVIDIA’s CUDA runtime with VARIANT=cuda', () => {
    expect(last.getImage()).toBe('${VARIANT}-base');
    expect(arg('VARIANT')).toBe('cpu');
    const base = (name: string) => froms.find((f) => f.getBuildStage() === name)!.getImage();
    expect(base('cpu-base')).toBe('${NODE_IMAGE}');
    expect(base('cuda-base')).toBe('${CUDA_IMAGE}');
    expect(arg('CUDA_IMAGE')).toMatch(/^nvidia\/cuda:13\.[\d.]+-runtime-/);
  });

  it('runs the agent as a user of its own, with its credential and models on the /data volume', () => {
    expect(text('USER')).toEqual(['glob']);
    expect(text('VOLUME')).toEqual(['/data']);
    expect(text('ENTRYPOINT')).toEqual(['["glob-node"]']);
    expect(text('ENV').join(' ')).toMatch(/GLOB_NODE_HOME=\/data/);
    expect(text('RUN').join(' ')).toMatch(/useradd --system --uid 10001/);
  });
});

describe('the CUDA variants', () => {
  const cudaImage = (file: string) => initialArg(parsed(file), 'CUDA_IMAGE');

  it('the platform’s image builds the same two variants as the node’s, on the same CUDA runtime', () => {
    const dockerfile = parsed('Dockerfile');
    const froms = dockerfile.getFROMs();
    expect(froms.at(-1)!.getImage()).toBe('${VARIANT}-base');
    expect(initialArg(dockerfile, 'VARIANT')).toBe('cpu');
    const base = (name: string) => froms.find((f) => f.getBuildStage() === name)?.getImage();
    expect([base('cpu-base'), base('cuda-base')]).toEqual(['${NODE_IMAGE}', '${CUDA_IMAGE}']);
    expect(cudaImage('Dockerfile')).toBe(cudaImage('node-agent/Dockerfile'));
  });

  it('ship the CUDA major node-llama-cpp’s prebuilt CUDA backend links', () => {
    // The backend's dynamic string table names the runtime it needs (libcudart.so.<major>); reading the bytes needs no
    // ELF tool on the machine.
    const backend = join(ROOT, 'node_modules', '@node-llama-cpp', 'linux-x64-cuda', 'bins', 'linux-x64-cuda', 'libggml-cuda.so');
    const needed = /libcudart\.so\.(\d+)/.exec(readFileSync(backend).toString('latin1'))?.[1];
    expect(needed).toBeDefined();
    expect(cudaImage('Dockerfile')).toMatch(new RegExp(`^nvidia/cuda:${needed}\\.[\\d.]+-runtime-`));
  });
});
