import { mutationOptions, queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { api, unwrap } from '../client';
import { tokenStore } from '../tokens';
import { startSession, updateUser, type SessionResponse } from '../session';

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

export type TwoFactorChallenge = Schemas['TwoFactorChallenge'];

/** An answer that asks for the second step (the account has two-factor sign-in on) instead of opening a session. */
export const isTwoFactorChallenge = (answer: object): answer is TwoFactorChallenge =>
  (answer as Partial<TwoFactorChallenge>).two_factor_required === true;

/** Opens the session an answer carries; a two-factor challenge opens none (its step does, with `loginTwoFactorMutation`). */
export function startSessionOf<A extends SessionResponse>(answer: A | TwoFactorChallenge): TwoFactorChallenge | null {
  if (isTwoFactorChallenge(answer)) return answer;
  startSession(answer);
  return null;
}

/** POST /api/users/login (email, password → a session, or a two-factor challenge); a session is started. */
export const loginMutation = () =>
  mutationOptions({
    mutationKey: ['accounts', 'login'] as const,
    mutationFn: async (body: Schemas['LoginRequest']) => startSessionOf(await unwrap(api.POST('/api/users/login', { body }))),
  });

/** POST /api/users/login/2fa (the challenge with an authenticator or recovery code → the session, started). */
export const loginTwoFactorMutation = () =>
  mutationOptions({
    mutationKey: ['accounts', 'login', '2fa'] as const,
    mutationFn: (body: Schemas['TwoFactorLoginRequest']) => unwrap(api.POST('/api/users/login/2fa', { body })),
    onSuccess: (session) => startSession(session),
  });

/**
 * Sign in with a passkey: options (for a two-factor challenge, that account's passkeys; else any this site's) → the
 * browser's passkey dialog (@simplewebauthn/browser, fetched only then) → POST login/passkey → the session, started.
 */
export const loginPasskeyMutation = () =>
  mutationOptions({
    mutationKey: ['accounts', 'login', 'passkey'] as const,
    mutationFn: async (challengeToken?: string) => {
      const challenge = challengeToken ? { challenge_token: challengeToken } : {};
      const optionsJSON = await unwrap(api.POST('/api/users/passkeys/authentication-options', { body: challenge }));
      const { startAuthentication } = await import('@simplewebauthn/browser');
      const response = await startAuthentication({ optionsJSON: optionsJSON as PublicKeyCredentialRequestOptionsJSON });
      return unwrap(api.POST('/api/users/login/passkey', { body: { response: response as Schemas['AuthenticationCredential'], ...challenge } }));
    },
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

/** GET /api/users/oauth/providers — the social sign-ins this server has a client for (the only buttons shown). */
export const oauthProvidersQuery = () =>
  queryOptions({
    queryKey: ['accounts', 'oauth', 'providers'] as const,
    queryFn: async () => (await unwrap(api.GET('/api/users/oauth/providers'))).providers,
    // Server configuration: it changes only with a restart.
    staleTime: Infinity,
  });

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
  /** DELETE /api/users/auth/delete-account (for an account with two-factor sign-in: its challenge and a code). */
  deleteAccount: () =>
    mutationOptions({
      mutationKey: ['accounts', 'deletion', 'delete'] as const,
      mutationFn: (body: Schemas['DeleteAccountRequest']) => unwrap(api.DELETE('/api/users/auth/delete-account', { body })),
      onSuccess: (_answer, body) => forgetIfSignedIn(body.email),
    }),
  /**
   * DELETE /api/users/auth/delete-account with a passkey as the second factor: options for the deletion's challenge →
   * the browser's passkey dialog (@simplewebauthn/browser, fetched only then) → the deletion.
   */
  deleteAccountWithPasskey: () =>
    mutationOptions({
      mutationKey: ['accounts', 'deletion', 'delete', 'passkey'] as const,
      mutationFn: async (body: { email: string; otp: string; challenge_token: string }) => {
        const optionsJSON = await unwrap(api.POST('/api/users/passkeys/authentication-options', { body: { challenge_token: body.challenge_token } }));
        const { startAuthentication } = await import('@simplewebauthn/browser');
        const response = await startAuthentication({ optionsJSON: optionsJSON as PublicKeyCredentialRequestOptionsJSON });
        return unwrap(api.DELETE('/api/users/auth/delete-account', { body: { ...body, passkey: response as Schemas['AuthenticationCredential'] } }));
      },
      onSuccess: (_answer, body) => forgetIfSignedIn(body.email),
    }),
};
