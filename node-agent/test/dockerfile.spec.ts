import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';

const ROOT = resolve(__dirname, '..', '..');

/**
 * The images' Dockerfiles, checked without a Docker engine (CI machines may have none): the Docker language
 * server's own validator, every COPY source present in the build context (the repository's root), every workspace's
 * package.json copied before `npm ci` (which refuses a lockfile whose workspaces are missing), and the node image's
 * promises: non-root, the credential and models on a volume, the agent as entry point, a CPU and a CUDA target.
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
  const dockerfile = DockerfileParser.parse(readFileSync(join(ROOT, 'node-agent', 'Dockerfile'), 'utf8'));
  const stage = (name: string): Instruction[] => {
    const froms = dockerfile.getFROMs();
    const i = froms.findIndex((f) => f.getBuildStage() === name);
    const start = froms[i]!.getRange().start.line;
    const end = froms[i + 1]?.getRange().start.line ?? Infinity;
    return dockerfile.getInstructions().filter((x) => x.getRange().start.line >= start && x.getRange().start.line < end);
  };
  const arg = (name: string) =>
    dockerfile
      .getInitialARGs()
      .map((a) => a.getProperty())
      .find((p) => p?.getName() === name)
      ?.getValue();

  it('builds the CPU image by default and a CUDA one on NVIDIA’s runtime image', () => {
    expect(dockerfile.getFROMs().at(-1)!.getBuildStage()).toBe('cpu');
    expect(arg('CUDA_IMAGE')).toMatch(/^nvidia\/cuda:13\.[\d.]+-runtime-/);
    expect(
      dockerfile
        .getFROMs()
        .find((f) => f.getBuildStage() === 'cuda')!
        .getImage(),
    ).toBe('${CUDA_IMAGE}');
  });

  it.each(['cpu', 'cuda'])('%s: runs the agent as a user of its own, with its credential and models on the /data volume', (name) => {
    const text = (keyword: string) =>
      stage(name)
        .filter((i) => i.getKeyword() === keyword)
        .map((i) => i.getArgumentsContent() ?? '');
    expect(text('USER')).toEqual(['glob']);
    expect(text('VOLUME')).toEqual(['/data']);
    expect(text('ENTRYPOINT')).toEqual(['["glob-node"]']);
    expect(text('ENV').join(' ')).toMatch(/GLOB_NODE_HOME=\/data/);
    expect(text('RUN').join(' ')).toMatch(/useradd --system --uid 10001/);
  });
});
