import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { sha256File } from '@glob/engine/file-proof';

/** The repository's node agent package, where `make pack-node` (npm pack) leaves it. */
const AGENT_DIR = join(__dirname, '..', '..', '..', '..', 'node-agent');
/** The file names the download serves: npm pack's `<name>-<version>.tgz`, the version carried in the name. */
const PACKAGE_FILE = /^glob-node-([0-9A-Za-z.+-]{1,60})\.tgz$/;
/** The agent's binary name inside the package (its `bin`). */
const BIN = 'glob-node';

function defaultPackage(): string | null {
  try {
    const { version } = JSON.parse(readFileSync(join(AGENT_DIR, 'package.json'), 'utf8')) as { version: string };
    return join(AGENT_DIR, `glob-node-${version}.tgz`);
  } catch {
    return null;
  }
}

/**
 * The node agent as a pairing machine gets it: until the agent is published on the npm registry (NODE_AGENT_NPM_NAME),
 * the API serves the package it was built with (`GET /api/nodes/agent/glob-node-<version>.tgz`) and the pairing
 * command has npx run that file, so the command works from any machine that reaches the API.
 */
@Injectable()
export class NodeAgentPackageService {
  private readonly path: string | null;
  /** The package's SHA-256, for the size and mtime it had when hashed. */
  private hashed: { size: number; mtimeMs: number; sha256: Promise<string> } | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.path = config.nodeAgent.packagePath ?? defaultPackage();
  }

  /** The package this API serves now (null when it serves none: not built, or a published name is configured). */
  async describe(): Promise<Schemas['NodeAgentPackage'] | null> {
    if (this.config.nodeAgent.npmName || !this.path) return null;
    const version = PACKAGE_FILE.exec(basename(this.path))?.[1];
    const s = await stat(this.path).catch(() => null);
    if (!version || !s?.isFile()) return null;
    if (!this.hashed || this.hashed.size !== s.size || this.hashed.mtimeMs !== s.mtimeMs) {
      this.hashed = { size: s.size, mtimeMs: s.mtimeMs, sha256: sha256File(this.path) };
    }
    const url = `${this.config.publicApiUrl}/api/nodes/agent/${basename(this.path)}`;
    return { version, url, sha256: await this.hashed.sha256, size_bytes: s.size };
  }

  /** The command that pairs a machine with `token`: npx runs the served package, or the published one. */
  command(token: string, agent: Schemas['NodeAgentPackage'] | null): string {
    const api = this.config.publicApiUrl;
    const run = agent ? `npx --yes --package ${agent.url} ${BIN}` : `npx --yes ${this.config.nodeAgent.npmName ?? BIN}`;
    return `${run} --api ${api} --join-token ${token}`;
  }

  /** The package's path when `file` names it; 404 for any other name. */
  async file(file: string): Promise<string> {
    const agent = await this.describe();
    if (!agent || !this.path || basename(this.path) !== file) throw new NotFoundException('No such node agent package');
    return this.path;
  }
}
