import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { nodeName, OptionsError, parseOptions } from '../src/options';

describe('node agent options', () => {
  it("defaults: the host name, the credential and models under the user's ~/.glob-network, GPU auto, no API until one is given", () => {
    const o = parseOptions([], {}, 'living-room-pc');
    expect(o).toEqual({
      command: 'run',
      api: undefined,
      joinToken: undefined,
      name: 'living-room-pc',
      home: join(homedir(), '.glob-network'),
      modelsDir: join(homedir(), '.glob-network', 'models'),
      dataDir: join(homedir(), '.glob-network', 'node'),
      threads: undefined,
      gpu: 'auto',
      poolAddress: { host: '127.0.0.1', port: 0 },
      memoryBytes: undefined,
      llamaBin: undefined,
      logFormat: 'auto',
      noBrowser: false,
      noTray: false,
      panelPort: 0,
      idleSource: 'auto',
      help: false,
    });
  });

  it('glob-node desktop: its own options, refused without it', () => {
    const o = parseOptions(
      ['desktop', '--api', 'https://globnetwork.io', '--no-tray', '--no-browser', '--panel-port', '4780', '--idle-source', 'file:idle.txt'],
      { INIT_CWD: '/repo' },
      'h',
    );
    expect(o).toMatchObject({
      command: 'desktop',
      api: 'https://globnetwork.io',
      noTray: true,
      noBrowser: true,
      panelPort: 4780,
      idleSource: 'file:/repo/idle.txt',
    });
    expect(parseOptions(['--home', '/h', 'desktop'], {}, 'h')).toMatchObject({ command: 'desktop', home: '/h', idleSource: 'auto', panelPort: 0 });
    expect(parseOptions(['desktop'], { GLOB_NO_TRAY: '1', GLOB_IDLE_SOURCE: 'none' }, 'h')).toMatchObject({ noTray: true, idleSource: 'none' });
    expect(() => parseOptions(['--no-tray'], {}, 'h')).toThrow('--no-tray is an option of glob-node desktop');
    expect(() => parseOptions(['desktop', '--panel-port', '70000'], {}, 'h')).toThrow(OptionsError);
    expect(() => parseOptions(['desktop', '--idle-source', 'mouse'], {}, 'h')).toThrow('--idle-source must be auto, none or file:PATH');
    expect(() => parseOptions(['serve'], {}, 'h')).toThrow('Unknown command serve');
  });

  it('--home moves both directories (relative to where the command was typed); the last of a repeated flag wins', () => {
    const o = parseOptions(['--home', '.data', '--home', 'other'], { INIT_CWD: '/repo' }, 'h');
    expect(o).toMatchObject({ home: '/repo/other', dataDir: '/repo/other/node', modelsDir: '/repo/other/models' });
    expect(parseOptions(['--home', '/srv/glob', '--models-dir', '/big/models'], {}, 'h')).toMatchObject({
      dataDir: '/srv/glob/node',
      modelsDir: '/big/models',
    });
    expect(parseOptions([], { GLOB_NODE_HOME: '/data' }, 'h').dataDir).toBe('/data/node');
  });

  it('reads flags as `--flag value` and `--flag=value`; flags win over the environment', () => {
    const env = { GLOB_API_URL: 'http://env:1', GLOB_JOIN_TOKEN: 'from-env', GLOB_NODE_THREADS: '3', GLOB_NODE_NAME: 'env-name' };
    const o = parseOptions(['--api', 'https://globnetwork.io/', '--threads=2', '--models-dir', 'm', '--data-dir=/tmp/d', '--gpu', 'off'], env, 'h');
    expect(o).toMatchObject({
      api: 'https://globnetwork.io',
      joinToken: 'from-env',
      name: 'env-name',
      threads: 2,
      modelsDir: resolve('m'),
      dataDir: '/tmp/d',
      gpu: 'off',
    });
  });

  it('takes every option from its environment variable', () => {
    const o = parseOptions(
      [],
      {
        GLOB_API_URL: 'http://127.0.0.1:3000',
        GLOB_JOIN_TOKEN: 'glb_join_x',
        GLOB_NODE_NAME: 'n',
        GLOB_NODE_HOME: '/srv/glob',
        GLOB_MODELS_DIR: '/models',
        GLOB_NODE_MODELS: 'a,b',
        GLOB_NODE_DATA_DIR: '/data',
        GLOB_NODE_THREADS: '4',
        GLOB_NODE_PARALLEL: '6',
        GLOB_NODE_GPU: 'off',
        GLOB_POOL_ADDRESS: '10.0.0.7:7001',
        GLOB_NODE_MEMORY_MB: '48',
        GLOB_LLAMA_BIN: '/opt/llama/bin',
        GLOB_LOG_FORMAT: 'json',
        GLOB_NO_BROWSER: '1',
        GLOB_NO_TRAY: '1',
        GLOB_PANEL_PORT: '4780',
        GLOB_IDLE_SOURCE: 'file:/run/idle',
      },
      'h',
    );
    expect(o).toEqual({
      command: 'run',
      api: 'http://127.0.0.1:3000',
      joinToken: 'glb_join_x',
      name: 'n',
      home: '/srv/glob',
      modelsDir: '/models',
      models: ['a', 'b'],
      dataDir: '/data',
      threads: 4,
      parallel: 6,
      gpu: 'off',
      poolAddress: { host: '10.0.0.7', port: 7001 },
      memoryBytes: 48 * 1024 ** 2,
      llamaBin: '/opt/llama/bin',
      logFormat: 'json',
      noBrowser: true,
      noTray: true,
      panelPort: 4780,
      idleSource: 'file:/run/idle',
      help: false,
    });
  });

  it.each([
    [['--bogus'], /Unknown option --bogus/],
    [['--api'], /--api needs a value/],
    [['--api', '--join-token', 'x'], /--api needs a value/],
    [['--api', 'not a url'], /--api must be a URL/],
    [['--api', 'ftp://x'], /http\(s\) URL/],
    [['--threads', '0'], /--threads must be a whole number/],
    [['--threads', '1.5'], /--threads must be a whole number/],
    [['--parallel', '0'], /--parallel must be a whole number from 1 to 64/],
    [['--parallel', '65'], /--parallel must be a whole number from 1 to 64/],
    [['--gpu', 'cuda'], /--gpu must be auto or off/],
    [['--pool-address', 'a b'], /--pool-address must be host or host:port/],
    [['--pool-address', '10.0.0.1:99999'], /--pool-address must be host or host:port/],
    [['--pool-address', '0.0.0.0'], /not 0\.0\.0\.0/],
    [['--memory', '0'], /--memory must be a whole number of MB/],
    [['--log-format', 'pretty'], /--log-format must be auto, json or text/],
    [['--no-browser=1'], /--no-browser takes no value/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOptions(argv, {}, 'h')).toThrow(OptionsError);
    expect(() => parseOptions(argv, {}, 'h')).toThrow(message);
  });

  it('relative paths are from where the command was typed (npm sets INIT_CWD), not from the package npm runs it in', () => {
    const o = parseOptions(['--models-dir', 'models', '--data-dir', '../node'], { INIT_CWD: '/home/me/glob' }, 'h');
    expect(o).toMatchObject({ modelsDir: '/home/me/glob/models', dataDir: '/home/me/node' });
    expect(parseOptions(['--pool-address', '[fd00::2]:7001'], {}, 'h').poolAddress).toEqual({ host: 'fd00::2', port: 7001 });
  });

  it('--models: the catalog models to pull and serve, by id', () => {
    expect(parseOptions(['--models', 'glob-tiny-chat, llama-3-8b-instruct'], {}, 'h').models).toEqual(['glob-tiny-chat', 'llama-3-8b-instruct']);
    expect(parseOptions([], { GLOB_NODE_MODELS: 'glob-tiny-chat' }, 'h').models).toEqual(['glob-tiny-chat']);
    expect(parseOptions([], {}, 'h').models).toBeUndefined();
    expect(() => parseOptions(['--models', 'a b'], {}, 'h')).toThrow(/--models must be catalog model ids/);
  });

  it('--no-browser: a flag without a value, or GLOB_NO_BROWSER=1', () => {
    expect(parseOptions(['--no-browser', '--api', 'http://a.test'], {}, 'h')).toMatchObject({ noBrowser: true, api: 'http://a.test' });
    expect(parseOptions([], { GLOB_NO_BROWSER: 'true' }, 'h').noBrowser).toBe(true);
    expect(parseOptions([], { GLOB_NO_BROWSER: '0' }, 'h').noBrowser).toBe(false);
    expect(parseOptions([], {}, 'h').noBrowser).toBe(false);
    expect(() => parseOptions([], { GLOB_NO_BROWSER: 'maybe' }, 'h')).toThrow(/GLOB_NO_BROWSER must be 1 or 0/);
  });

  it('--help', () => {
    expect(parseOptions(['--help'], {}, 'h').help).toBe(true);
  });

  it('makes a name the API accepts: no control characters, at most 60 characters, never empty', () => {
    expect(nodeName('pc\u0007\n')).toBe('pc');
    expect(nodeName('x'.repeat(80))).toHaveLength(60);
    expect(nodeName('\u0001')).toBe('glob-node');
  });
});
