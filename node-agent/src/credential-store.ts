import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What pairing leaves behind: the API the node belongs to and its secret. */
export interface StoredCredential {
  api: string;
  node_id: string;
  credential: string;
  name: string;
}

/** `<data-dir>/credential.json`, readable by its owner only (mode 0600). */
export class CredentialStore {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'credential.json');
  }

  /** The stored credential, or null before the first pairing. A damaged file is an error, not a silent re-pair. */
  async read(): Promise<StoredCredential | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const c = JSON.parse(text) as Partial<StoredCredential>;
    if (typeof c.api !== 'string' || typeof c.node_id !== 'string' || typeof c.credential !== 'string') {
      throw new Error(`${this.path} is damaged: delete it and pair again with a new join token`);
    }
    return { api: c.api, node_id: c.node_id, credential: c.credential, name: typeof c.name === 'string' ? c.name : '' };
  }

  /** Written to a temporary file first, so a crash never leaves half a credential. */
  async write(c: StoredCredential): Promise<void> {
    await mkdir(join(this.path, '..'), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(c, null, 2)}\n`, { mode: 0o600 });
    // writeFile's mode is masked by the umask and ignored for an existing file.
    await chmod(tmp, 0o600);
    await rename(tmp, this.path);
  }

  /** Sets a revoked credential aside (credential.json.revoked), so the next run pairs anew. */
  async discard(): Promise<void> {
    await rename(this.path, `${this.path}.revoked`);
  }
}
