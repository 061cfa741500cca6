import { ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { BEARER_SECRET_OPERATION } from './bearer-secret';
import { IS_PUBLIC } from './public.decorator';

/** The AI operations (inference, chat, tokens) say why they need a sign-in, in the web app's own words. */
export const AI_AUTH_MESSAGE = 'Authentication required. Please login to use AI services.';
const AI_PATHS = /^\/api\/(inference|chat|tokens)\//;
/** Every other signed-in operation's answer without a valid access token. */
export const AUTH_REQUIRED = 'Authentication required';

/**
 * Global guard: every operation needs a user's valid bearer token unless marked @Public(), a node operation or an
 * API key operation (each has its own guard).
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const targets = [context.getHandler(), context.getClass()];
    const skip = [IS_PUBLIC, BEARER_SECRET_OPERATION].some((flag) => this.reflector.getAllAndOverride<boolean>(flag, targets));
    return skip ? true : super.canActivate(context);
  }

  override handleRequest<T>(err: unknown, user: T, _info: unknown, context: ExecutionContext): T {
    if (err || !user) {
      const req = context.switchToHttp().getRequest<Request>();
      throw new UnauthorizedException(AI_PATHS.test(req.path) ? AI_AUTH_MESSAGE : AUTH_REQUIRED);
    }
    return user;
  }
}
