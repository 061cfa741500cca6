import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialStore } from '../src/credential-store';

describe('the node credential store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-node-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const c = { api: 'http://127.0.0.1:3000', node_id: '7c1e9a52-3b8d-4f60-a2e4-9d5b1c7f3e08', credential: 'glb_node_x', name: 'pc' };

  it('nothing before pairing; afterwards <data-dir>/credential.json, mode 0600, read back as written', async () => {
    const store = new CredentialStore(join(dir, 'node'));
    expect(await store.read()).toBeNull();
    await store.write(c);
    expect(store.path).toBe(join(dir, 'node', 'credential.json'));
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual(c);
    expect(await store.read()).toEqual(c);
  });

  it('a damaged file is an error, not a silent new pairing', async () => {
    const store = new CredentialStore(dir);
    await writeFile(store.path, '{"api": 1}');
    await expect(store.read()).rejects.toThrow(/damaged/);
  });

  it('discard() sets a revoked credential aside', async () => {
    const store = new CredentialStore(dir);
    await store.write(c);
    await store.discard();
    expect(await store.read()).toBeNull();
    expect(JSON.parse(await readFile(`${store.path}.revoked`, 'utf8'))).toEqual(c);
  });
});
