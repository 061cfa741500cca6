import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/** What a valid access token proves: who is calling. */
export interface AuthUser {
  id: string;
  tokenId: string;
  /** The sign-in (token family) the access token belongs to. */
  sessionId: string;
}

/** The signed-in caller of the current request. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthUser }>().user;
});
