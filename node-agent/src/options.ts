/**
 * The node agent's own options: command-line flags, each with an environment equivalent. The agent never reads
 * the API's configuration (no DATABASE_URL, no REDIS_URL): it talks to the API over HTTP only.
 */
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { LogFormat } from './logging';

/** This package's own directory: src/ or dist/ is one level below it, in the repository and once installed alike. */
export const PACKAGE_DIR = resolve(__dirname, '..');

/** Where a node keeps its credential (node/) and its models (models/) unless told otherwise. */
export const DEFAULT_HOME = join(homedir(), '.glob-network');

export interface AgentOptions {
  /** `run`: the agent alone, in a terminal or as a service; `desktop`: with its control panel and tray icon (desktop/). */
  command: 'run' | 'desktop';
  /** The API's base URL; undefined when it should come from the stored credential. */
  api: string | undefined;
  joinToken: string | undefined;
  name: string;
  /** The node's own directory: its credential and its models live below it unless given elsewhere. */
  home: string;
  modelsDir: string;
  /** Catalog model ids to pull and serve; undefined for every one the allocation allows. */
  models: string[] | undefined;
  dataDir: string;
  /** Overrides the threads the CPU allocation gives (for benchmarks). */
  threads: number | undefined;
  /** Replies run at once per model (sequences batched in one context); undefined: as many as the memory allocation fits. */
  parallel: number | undefined;
  /** `off` never uses a GPU, even when one is present. */
  gpu: 'auto' | 'off';
  /** Where the pool tunnel listens for the other members of a pool (a private address; port 0: any free one). */
  poolAddress: { host: string; port: number };
  /** The memory to count as this machine's, in bytes, instead of all of it. */
  memoryBytes: number | undefined;
  /** A directory with llama.cpp's RPC build (ggml-rpc-server, llama-server), instead of the shared cache. */
  llamaBin: string | undefined;
  /** JSON lines, human lines, or (auto) human lines in a terminal and JSON otherwise. */
  logFormat: LogFormat;
  /** Pairing by device code prints the address to open but never opens a browser. */
  noBrowser: boolean;
  /** desktop: no tray icon (the panel only). */
  noTray: boolean;
  /** desktop: the panel's port on 127.0.0.1 (0: any free one). */
  panelPort: number;
  /** desktop: where idle time comes from: `auto` (the OS), `none`, or `file:PATH` (seconds, written by something else). */
  idleSource: string;
  help: boolean;
}

export class OptionsError extends Error {
  override readonly name = 'OptionsError';
}

export const USAGE = `Usage: glob-node [options]
       glob-node desktop [options]

Runs this machine as a Glob Network node: it serves the network's models with llama.cpp and earns GLOB.
The first run pairs the machine: it shows a code and opens the web app in your browser, where you confirm
that code, signed in (or pass a join token from the web app, "Your nodes" → "Pair a new node", with
--join-token, as on a server). Later runs need no options at all.

Options (environment variable in brackets):
  --api <url>           The API, e.g. https://globnetwork.io (GLOB_API_URL); default: the paired one
  --join-token <token>  Pairs this machine on its first run (GLOB_JOIN_TOKEN); default: pair by a code
                        confirmed in the web app
  --no-browser          When pairing by code, only print the address to open; never open a browser
                        (GLOB_NO_BROWSER=1)
  --name <name>         The node's name (GLOB_NODE_NAME); default: this machine's host name
  --home <dir>          The node's directory (GLOB_NODE_HOME); default: ~/.glob-network
  --models-dir <dir>    Where the GGUF model files are (GLOB_MODELS_DIR); default: <home>/models
  --models <id,id,…>    Pull and serve only these catalog models (GLOB_NODE_MODELS); default: every one
                        the memory and disk allocation allow
  --data-dir <dir>      Where the node keeps its credential (GLOB_NODE_DATA_DIR); default: <home>/node
  --threads <n>         llama.cpp threads, instead of what the CPU allocation gives (GLOB_NODE_THREADS)
  --parallel <n>        Replies served at once, batched together (GLOB_NODE_PARALLEL); default: as many as
                        the memory allocation leaves room for beside the models (at most 16)
  --gpu <auto|off>      Use a GPU when one is present (GLOB_NODE_GPU); default: auto
  --pool-address <host[:port]>
                        Where this node's pool tunnel listens for the other members of a pool: an address of
                        the private network they share (GLOB_POOL_ADDRESS); default: 127.0.0.1 (pools on this
                        machine only), any free port
  --memory <MB>         The memory to count as this machine's (GLOB_NODE_MEMORY_MB); default: all of it
  --llama-bin <dir>     llama.cpp's RPC build to pool with (GLOB_LLAMA_BIN); default: built once into
                        ~/.cache/glob-network by this package's llama-rpc.mjs
  --log-format <auto|json|text>
                        One JSON object per line, or short lines for people (GLOB_LOG_FORMAT); default: auto
                        (short lines in a terminal, JSON otherwise)
  --help                This text

glob-node desktop runs the same node as a desktop app: a control panel in an app window of your browser
(served on 127.0.0.1 only), a tray icon, sharing only while the computer is idle if you like, and a start at
login (on by default; switch it off in the panel or the tray). Pairing starts from the panel. Its own options:
  --no-tray             No tray icon, only the panel (GLOB_NO_TRAY=1)
  --no-browser          Print the panel's address instead of opening it (and the pairing page's)
  --panel-port <n>      The panel's port on 127.0.0.1 (GLOB_PANEL_PORT); default: any free one
  --idle-source <auto|none|file:PATH>
                        Where the computer's idle time comes from (GLOB_IDLE_SOURCE); default: auto (the OS:
                        xprintidle or GNOME on Linux, ioreg on macOS, GetLastInputInfo on Windows); file:PATH
                        reads the idle seconds from a file another program writes`;

/** Flags without a value, with the environment variable that sets them (1 or true). */
const SWITCHES = {
  '--no-browser': 'GLOB_NO_BROWSER',
  '--no-tray': 'GLOB_NO_TRAY',
} as const;
type Switch = keyof typeof SWITCHES;

const isSwitch = (s: string): s is Switch => Object.hasOwn(SWITCHES, s);

const FLAGS = {
  '--api': 'GLOB_API_URL',
  '--join-token': 'GLOB_JOIN_TOKEN',
  '--name': 'GLOB_NODE_NAME',
  '--home': 'GLOB_NODE_HOME',
  '--models-dir': 'GLOB_MODELS_DIR',
  '--models': 'GLOB_NODE_MODELS',
  '--data-dir': 'GLOB_NODE_DATA_DIR',
  '--threads': 'GLOB_NODE_THREADS',
  '--parallel': 'GLOB_NODE_PARALLEL',
  '--gpu': 'GLOB_NODE_GPU',
  '--pool-address': 'GLOB_POOL_ADDRESS',
  '--memory': 'GLOB_NODE_MEMORY_MB',
  '--llama-bin': 'GLOB_LLAMA_BIN',
  '--log-format': 'GLOB_LOG_FORMAT',
  '--panel-port': 'GLOB_PANEL_PORT',
  '--idle-source': 'GLOB_IDLE_SOURCE',
} as const;
type Flag = keyof typeof FLAGS;

const isFlag = (s: string): s is Flag => Object.hasOwn(FLAGS, s);

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f]/g;

/** The spec's text fields (names, host facts) refuse control characters. */
export const withoutControlChars = (s: string): string => s.replace(CONTROL_CHARS, '');

/** A node name the API accepts: no control characters, 1-60 characters. */
export function nodeName(raw: string): string {
  const clean = withoutControlChars(raw).trim();
  return (clean || 'glob-node').slice(0, 60);
}

/** The options only `glob-node desktop` takes (given on the command line to the plain agent, they are a mistake). */
const DESKTOP_ONLY: ReadonlyArray<Flag | Switch> = ['--no-tray', '--panel-port', '--idle-source'];

/** Flags win over the environment; `--flag value` and `--flag=value` both work. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env, host = hostname()): AgentOptions {
  const given: Partial<Record<Flag, string>> = {};
  const switched = new Set<Switch>();
  let help = false;
  let command: AgentOptions['command'] = 'run';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('-')) {
      if (arg !== 'desktop' || command === 'desktop') throw new OptionsError(`Unknown command ${arg}`);
      command = 'desktop';
      continue;
    }
    if (isSwitch(arg)) {
      switched.add(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (isSwitch(flag)) throw new OptionsError(`${flag} takes no value`);
    if (!isFlag(flag)) throw new OptionsError(`Unknown option ${arg}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) throw new OptionsError(`${flag} needs a value`);
    given[flag] = value;
  }
  if (command !== 'desktop') {
    const misplaced = DESKTOP_ONLY.find((o) => (isSwitch(o) ? switched.has(o) : given[o] !== undefined));
    if (misplaced) throw new OptionsError(`${misplaced} is an option of glob-node desktop`);
  }
  const get = (flag: Flag): string | undefined => given[flag] ?? (env[FLAGS[flag]] || undefined);
  const on = (s: Switch): boolean => {
    if (switched.has(s)) return true;
    const raw = env[SWITCHES[s]]?.trim().toLowerCase();
    if (!raw || raw === '0' || raw === 'false') return false;
    if (raw === '1' || raw === 'true') return true;
    throw new OptionsError(`${SWITCHES[s]} must be 1 or 0, got ${env[SWITCHES[s]]}`);
  };
  // npm runs scripts in the package's directory; a relative path means one from where the command was typed.
  const base = env.INIT_CWD || process.cwd();

  const api = get('--api');
  if (api !== undefined) {
    let url: URL;
    try {
      url = new URL(api);
    } catch {
      throw new OptionsError(`--api must be a URL such as https://globnetwork.io, got ${api}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OptionsError(`--api must be an http(s) URL, got ${api}`);
  }
  const threadsRaw = get('--threads');
  let threads: number | undefined;
  if (threadsRaw !== undefined) {
    threads = Number(threadsRaw);
    if (!Number.isInteger(threads) || threads < 1 || threads > 1024)
      throw new OptionsError(`--threads must be a whole number from 1, got ${threadsRaw}`);
  }
  const parallelRaw = get('--parallel');
  const parallel = parallelRaw === undefined ? undefined : Number(parallelRaw);
  if (parallel !== undefined && (!Number.isInteger(parallel) || parallel < 1 || parallel > 64))
    throw new OptionsError(`--parallel must be a whole number from 1 to 64, got ${parallelRaw}`);
  const gpu = get('--gpu') ?? 'auto';
  if (gpu !== 'auto' && gpu !== 'off') throw new OptionsError(`--gpu must be auto or off, got ${gpu}`);
  const poolRaw = get('--pool-address') ?? '127.0.0.1';
  const pool = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(poolRaw);
  if (!pool || Number(pool[2] ?? 0) > 65535) throw new OptionsError(`--pool-address must be host or host:port, got ${poolRaw}`);
  if (pool[1] === '0.0.0.0' || pool[1] === '[::]')
    throw new OptionsError('--pool-address must be an address the other members can reach, not 0.0.0.0');
  const memoryRaw = get('--memory');
  const memoryMb = memoryRaw === undefined ? undefined : Number(memoryRaw);
  if (memoryMb !== undefined && (!Number.isInteger(memoryMb) || memoryMb < 1))
    throw new OptionsError(`--memory must be a whole number of MB, got ${memoryRaw}`);
  const llamaBin = get('--llama-bin');
  const logFormat = get('--log-format') ?? 'auto';
  if (logFormat !== 'auto' && logFormat !== 'json' && logFormat !== 'text')
    throw new OptionsError(`--log-format must be auto, json or text, got ${logFormat}`);
  const modelsRaw = get('--models');
  const models = modelsRaw
    ?.split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (models?.some((m) => !/^[A-Za-z0-9._-]{1,100}$/.test(m)))
    throw new OptionsError(`--models must be catalog model ids separated by commas, got ${modelsRaw}`);
  const panelPortRaw = get('--panel-port') ?? '0';
  const panelPort = Number(panelPortRaw);
  if (!Number.isInteger(panelPort) || panelPort < 0 || panelPort > 65535)
    throw new OptionsError(`--panel-port must be a port number (0: any free one), got ${panelPortRaw}`);
  const idleSource = get('--idle-source') ?? 'auto';
  if (idleSource !== 'auto' && idleSource !== 'none' && !/^file:.+/.test(idleSource))
    throw new OptionsError(`--idle-source must be auto, none or file:PATH, got ${idleSource}`);
  const home = resolve(base, get('--home') ?? DEFAULT_HOME);
  return {
    command,
    api: api?.replace(/\/+$/, ''),
    joinToken: get('--join-token'),
    name: nodeName(get('--name') ?? host),
    home,
    modelsDir: resolve(base, get('--models-dir') ?? join(home, 'models')),
    models: models?.length ? models : undefined,
    dataDir: resolve(base, get('--data-dir') ?? join(home, 'node')),
    threads,
    parallel,
    gpu,
    poolAddress: { host: pool[1]!.replace(/^\[|\]$/g, ''), port: Number(pool[2] ?? 0) },
    memoryBytes: memoryMb === undefined ? undefined : memoryMb * 1024 ** 2,
    llamaBin: llamaBin === undefined ? undefined : resolve(base, llamaBin),
    logFormat,
    noBrowser: on('--no-browser'),
    noTray: on('--no-tray'),
    panelPort,
    idleSource: idleSource.startsWith('file:') ? `file:${resolve(base, idleSource.slice(5))}` : idleSource,
    help,
  };
}
