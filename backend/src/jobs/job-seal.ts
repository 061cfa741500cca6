import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { JobName, JobPayloads } from './jobs';

/**
 * The fields of each job that hold what people typed or were sent (addresses, codes, prompts, replies, schemas):
 * sealed before the job enters Redis, so neither the queue dashboard nor a look at Redis shows them. What stays in
 * clear is ids, amounts and the request id, which the dashboard and the claims need.
 */
const SEALED_FIELDS = {
  'mail.send': ['to', 'subject', 'text', 'html', 'replyTo'],
  'inference.generate': ['messages', 'prompt', 'params', 'embed'],
  'inference.verify': ['messages', 'prompt', 'params', 'score', 'recompute', 'embeddings'],
} as const satisfies { [N in JobName]: readonly (keyof JobPayloads[N])[] };

type SealedField<N extends JobName> = (typeof SEALED_FIELDS)[N][number];

/** A job as Redis holds it: its clear fields, and the rest in `sealed`. */
export type StoredJob<N extends JobName> = Omit<JobPayloads[N], SealedField<N>> & { sealed: string };

/** Marks the format, so another key or cipher can be added later beside this one. */
const V1 = 'v1:';

/**
 * Seals and opens job payloads with AES-256-GCM under a key derived (HKDF) from TWO_FACTOR_KEY, which the API and the
 * workers share and Redis never sees; the job's name is bound in, so a sealed part cannot be moved to another kind of job.
 */
@Injectable()
export class JobSeal {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.twoFactorKey, Buffer.alloc(0), 'glob jobs: sealed payloads', 32));
  }

  seal<N extends JobName>(name: N, data: JobPayloads[N]): StoredJob<N> {
    const clear: Record<string, unknown> = { ...data };
    const hidden: Record<string, unknown> = {};
    for (const field of SEALED_FIELDS[name] as readonly string[]) {
      if (field in clear) hidden[field] = clear[field];
      delete clear[field];
    }
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(name));
    const body = Buffer.concat([cipher.update(JSON.stringify(hidden), 'utf8'), cipher.final()]);
    return { ...clear, sealed: V1 + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64') } as StoredJob<N>;
  }

  /** The payload as it was enqueued; throws when it was not sealed for this kind of job under this key. */
  open<N extends JobName>(name: N, stored: StoredJob<N>): JobPayloads[N] {
    const { sealed, ...clear } = stored as StoredJob<N> & Record<string, unknown>;
    if (typeof sealed !== 'string' || !sealed.startsWith(V1)) throw new Error(`A ${name} job without its sealed part`);
    const raw = Buffer.from(sealed.slice(V1.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(name));
    decipher.setAuthTag(raw.subarray(12, 28));
    const hidden = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as object;
    return { ...clear, ...hidden } as unknown as JobPayloads[N];
  }
}
