import { mutationOptions, queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { api, unwrap } from '../client';
import { tokenStore } from '../tokens';
import { startSession, updateUser } from '../../features/session/session';

type Schemas = components['schemas'];
export type OAuthProvider = Schemas['OAuthProvider'];
export const OAUTH_PROVIDERS: readonly OAuthProvider[] = ['google', 'github', 'microsoft'];

/** GET /api/users/me — the signed-in user; a fresh copy is kept in local storage. */
export const meQuery = () =>
  queryOptions({
    queryKey: ['accounts', 'me'] as const,
    queryFn: async () => {
      const { user } = await unwrap(api.GET('/api/users/me'));
      updateUser(user);
      return user;
    },
    // User data is refreshed whenever the sidebar and top bar appear.
    staleTime: 0,
    retry: false,
  });

/** POST /api/users/login (email, password → access_token, refresh_token, user); success starts the session. */
export const loginMutation = () =>
  mutationOptions({
    mutationKey: ['accounts', 'login'] as const,
    mutationFn: (body: Schemas['LoginRequest']) => unwrap(api.POST('/api/users/login', { body })),
    onSuccess: (session) => startSession(session),
  });

/** POST /api/users/send-otp (purpose defaults to signup). */
export const sendOtp = (body: Schemas['SendOtpRequest']) => unwrap(api.POST('/api/users/send-otp', { body }));

/** POST /api/users/verify-otp → verified, verification_token, message. */
export const verifyOtp = (body: Schemas['VerifyOtpRequest']) => unwrap(api.POST('/api/users/verify-otp', { body }));

/** POST /api/users/register-with-otp (needs the verification token of verify-otp). */
export const registerWithOtp = (body: Schemas['RegisterWithOtpRequest']) => unwrap(api.POST('/api/users/register-with-otp', { body }));

/** POST /api/users/reset-password (needs the verification token of verify-otp with purpose password_reset). */
export const resetPassword = (body: Schemas['ResetPasswordRequest']) => unwrap(api.POST('/api/users/reset-password', { body }));

/** GET /api/users/oauth/auth-url/{provider} → authorization_url (the browser then goes there). */
export const oauthAuthUrl = (provider: OAuthProvider) => unwrap(api.GET('/api/users/oauth/auth-url/{provider}', { params: { path: { provider } } }));

/** POST /api/users/oauth/callback/{provider} with the provider's `code` and `state`. */
export const oauthCallback = (provider: OAuthProvider, body: Schemas['OAuthCallbackRequest']) =>
  unwrap(api.POST('/api/users/oauth/callback/{provider}', { params: { path: { provider } }, body }));

/** If the account just deleted is the one signed in in this browser, its local session goes too. */
function forgetIfSignedIn(email: string) {
  const stored = tokenStore.getUser();
  if (stored?.email && stored.email.trim().toLowerCase() === email.toLowerCase()) tokenStore.clear();
}

/** Account deletion (no sign-in): e-mail a code, check it, then delete with the e-mail and the code. */
export const accountDeletionMutations = {
  /** POST /api/users/auth/send-deletion-otp. */
  sendOtp: () =>
    mutationOptions({
      mutationKey: ['accounts', 'deletion', 'send-otp'] as const,
      mutationFn: (body: Schemas['DeletionOtpRequest']) => unwrap(api.POST('/api/users/auth/send-deletion-otp', { body })),
    }),
  /** POST /api/users/auth/verify-deletion-otp. */
  verifyOtp: () =>
    mutationOptions({
      mutationKey: ['accounts', 'deletion', 'verify-otp'] as const,
      mutationFn: (body: Schemas['DeletionOtpCheck']) => unwrap(api.POST('/api/users/auth/verify-deletion-otp', { body })),
    }),
  /** DELETE /api/users/auth/delete-account. */
  deleteAccount: () =>
    mutationOptions({
      mutationKey: ['accounts', 'deletion', 'delete'] as const,
      mutationFn: (body: Schemas['DeletionOtpCheck']) => unwrap(api.DELETE('/api/users/auth/delete-account', { body })),
      onSuccess: (_answer, body) => forgetIfSignedIn(body.email),
    }),
};
