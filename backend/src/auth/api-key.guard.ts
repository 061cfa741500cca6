import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeyIdentity, ApiKeysRepository } from '../modules/api-keys/api-keys.repository';
import { hashSecret } from './node-credential.guard';

export const IS_API_KEY_OPERATION = 'isApiKeyOperation';

export const API_KEY_PREFIX = 'glb_sk_';
const BEARER = /^Bearer (glb_sk_[A-Za-z0-9_-]{32,200})$/;
export const API_KEY_AUTH_MESSAGE = 'Incorrect API key provided. Create one under API keys in the web app.';

/** API keys authenticate the /v1 operations and nothing else; a user's access token is not an API key. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeysRepository) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { apiKey?: ApiKeyIdentity }>();
    const key = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const found = key ? await this.keys.byHash(hashSecret(key)) : undefined;
    if (!found) throw new UnauthorizedException(API_KEY_AUTH_MESSAGE);
    req.apiKey = found;
    return true;
  }
}

/** An operation of the OpenAI-compatible API: the API key guard instead of the users' one. */
export const ApiKeyOperation = () => applyDecorators(SetMetadata(IS_API_KEY_OPERATION, true), UseGuards(ApiKeyGuard));

/** The authenticated key of a /v1 operation. */
export const CurrentApiKey = createParamDecorator((_: unknown, ctx: ExecutionContext): ApiKeyIdentity => {
  return ctx.switchToHttp().getRequest<{ apiKey: ApiKeyIdentity }>().apiKey;
});
