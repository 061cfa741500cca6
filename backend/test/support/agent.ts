import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { resolve } from 'node:path';
import type { TestStack } from './app';
import type { NetnsHost } from './netns';

const REPO = resolve(__dirname, '..', '..', '..');

/**
 * How the tests run a node: one thread, no GPU, the shared models directory, serving the tiny model only (the test
 * catalog gives every model the tiny model's file, so an agent left to itself would serve them all).
 */
export const TEST_AGENT_ARGS = ['--models-dir', process.env.MODELS_DIR!, '--threads', '1', '--gpu', 'off', '--models', 'glob-tiny-chat'];

/** A node agent process (`npm run node`'s entry point) as a provider runs it. */
export interface AgentProcess {
  child: ChildProcess;
  /** What it printed, its JSON log lines as their messages (one per line), anything else as it came. */
  output(): string;
  /** Its JSON log lines (the agent logs JSON when stdout is not a terminal). */
  lines(): Array<Record<string, unknown> & { msg: string }>;
  /** Resolves when the output matches (or fails with the output so far). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  /** Signals the whole process group (npx runs the agent in a child process of its own). */
  kill(signal: NodeJS.Signals): void;
}

/**
 * Starts the agent with `args`, in an environment without DATABASE_URL, REDIS_URL or any GLOB_ setting, so all
 * it knows of the platform is the API URL it is given. With `host`, it runs inside that network namespace.
 */
export function startAgent(args: string[], host?: NetnsHost): AgentProcess {
  return startAgentCommand([process.execPath, '--conditions=glob-source', '-r', '@swc-node/register', 'node-agent/src/main.ts', ...args], {
    cwd: REPO,
    host,
  });
}

/**
 * Any agent command (the packed agent's `npx glob-node …`, say) in the same bare environment, plus `env`, in a
 * process group of its own, as a terminal runs it.
 */
export function startAgentCommand(command: string[], o: { cwd: string; host?: NetnsHost; env?: NodeJS.ProcessEnv }): AgentProcess {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(DATABASE_URL|REDIS_URL|REDIS_PREFIX|MODELS_DIR|MODEL_CATALOG|GLOB_)/.test(k)) env[k] = v;
  }
  const options: SpawnOptions = { cwd: o.cwd, env: { ...env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true };
  const child = o.host ? o.host.spawn(command[0]!, command.slice(1), options) : spawn(command[0]!, command.slice(1), options);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const json = (line: string) => {
    if (!line.startsWith('{')) return null;
    try {
      return JSON.parse(line) as Record<string, unknown> & { msg: string };
    } catch {
      return null;
    }
  };
  const output = () =>
    out
      .split('\n')
      .map((line) => json(line)?.msg ?? line)
      .join('\n');
  return {
    child,
    output,
    lines: () => out.split('\n').flatMap((line) => json(line) ?? []),
    exited,
    kill(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        child.kill(signal);
      }
    },
    async waitFor(pattern, ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const m = pattern.exec(output());
        if (m) return m;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`agent output never matched ${pattern}:\n${output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/**
 * The project's agent paired with a fresh join token of `owner` as `name`, on the test models (one thread, no GPU),
 * its credential kept in `dataDir`; resolves once it has paired. `models`: the catalog models it serves instead of
 * the tiny model alone.
 */
export async function pairAgent(
  stack: Pick<TestStack, 'url' | 'http'>,
  owner: { auth: Record<string, string> },
  name: string,
  dataDir: string,
  opts: { models?: string[] } = {},
): Promise<AgentProcess> {
  const token = await stack.http.post('/api/nodes/join-tokens').set(owner.auth).expect(201);
  const args = opts.models ? TEST_AGENT_ARGS.map((a, i) => (TEST_AGENT_ARGS[i - 1] === '--models' ? opts.models!.join(',') : a)) : TEST_AGENT_ARGS;
  const agent = startAgent([
    ...['--api', stack.url, '--join-token', token.body.join_token as string, '--name', name],
    ...['--data-dir', dataDir, ...args],
  ]);
  await agent.waitFor(new RegExp(`Paired as ${name}`));
  return agent;
}

/** Kills the agent if it still runs (a test that failed half-way), and waits for it to exit. */
export async function killAgent(agent: AgentProcess | undefined): Promise<void> {
  if (!agent || agent.child.exitCode !== null) return;
  agent.kill('SIGKILL');
  await agent.exited;
}

/** Resolves once `modelId` is offered to `asker` (a node serves it, its challenge answered); fails with the agent's log. */
export async function untilAvailable(stack: TestStack, asker: { auth: Record<string, string> }, modelId: string, agent: AgentProcess): Promise<void> {
  for (const deadline = Date.now() + 30_000; ;) {
    const models = (await stack.http.get('/api/inference/models').set(asker.auth).expect(200)).body.models as Array<{ id: string; status: string }>;
    if (models.find((m) => m.id === modelId)!.status === 'available') return;
    if (Date.now() > deadline) throw new Error(`the agent's model never became available:\n${agent.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
