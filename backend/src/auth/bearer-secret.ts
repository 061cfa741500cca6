import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
  type Type,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import type { Request } from 'express';
import { createHash, randomBytes } from 'node:crypto';

/** Credentials are random and high-entropy: a plain SHA-256 is a safe and fast lookup key for them. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** A new secret: its prefix, then 192 random bits (32 base64url characters). Shown once; only its hash is kept. */
export const newSecret = (prefix: string) => prefix + randomBytes(24).toString('base64url');

/** Marks an operation that a bearer secret of its own kind authenticates: the users' JWT guard leaves it alone. */
export const BEARER_SECRET_OPERATION = 'bearerSecretOperation';

export interface BearerSecretKind<R, T> {
  /** The secret's prefix, e.g. `glb_node_`. */
  prefix: string;
  /** The repository that finds the holder of a secret by its hash. */
  repository: Type<R>;
  find: (repository: R, hash: string) => Promise<T | undefined>;
  /** The 401's message for a missing, unknown or revoked secret. */
  message: string;
}

/**
 * The guard and decorators of one kind of bearer secret (a node credential, an API key), which authenticates its own
 * operations and nothing else: `Operation()` marks an operation as one of them, `Current()` reads its holder.
 */
export function bearerSecret<R, T>(kind: BearerSecretKind<R, T>) {
  const pattern = new RegExp(`^Bearer (${kind.prefix}[A-Za-z0-9_-]{16,200})$`);
  const slot = Symbol(kind.prefix);

  @Injectable()
  class BearerSecretGuard implements CanActivate {
    constructor(@Inject(kind.repository) private readonly repository: R) {}

    async canActivate(context: ExecutionContext): Promise<boolean> {
      const req = context.switchToHttp().getRequest<Request & { [slot]?: T }>();
      const secret = pattern.exec(req.headers.authorization ?? '')?.[1];
      const holder = secret ? await kind.find(this.repository, hashSecret(secret)) : undefined;
      if (!holder) throw new UnauthorizedException(kind.message);
      req[slot] = holder;
      return true;
    }
  }

  return {
    Guard: BearerSecretGuard,
    Operation: () => applyDecorators(SetMetadata(BEARER_SECRET_OPERATION, true), UseGuards(BearerSecretGuard)),
    Current: createParamDecorator((_: unknown, ctx: ExecutionContext): T => ctx.switchToHttp().getRequest<{ [slot]: T }>()[slot]),
  };
}
