import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { api, unwrap } from '../client';

export type TotpSetup = components['schemas']['TotpSetup'];
export type TwoFactorProof = components['schemas']['TwoFactorProof'];

export const securityQueries = {
  all: ['security'] as const,

  /** GET /api/users/2fa — whether sign-in asks for a second step, and how many recovery codes are left. */
  twoFactor: () =>
    queryOptions({
      queryKey: [...securityQueries.all, '2fa'] as const,
      queryFn: () => unwrap(api.GET('/api/users/2fa')),
    }),

  /** GET /api/users/sessions — the caller's signed-in sessions, the current one marked. */
  sessions: () =>
    queryOptions({
      queryKey: [...securityQueries.all, 'sessions'] as const,
      queryFn: () => unwrap(api.GET('/api/users/sessions')).then((r) => r.sessions),
      // "Last used" moves while the page is open (a key used from a terminal, a sign-in on another device): read
      // again when the tab comes back into view.
      staleTime: 0,
      refetchOnWindowFocus: true,
    }),
};

/** Every change to two-factor sign-in, done or refused, is followed by reading its status again. */
const rereadStatus = (client: QueryClient) => void client.invalidateQueries({ queryKey: securityQueries.all });

export const securityMutations = {
  /** POST /api/users/2fa/totp/setup — a new secret (QR code URI and text), waiting for its first code. */
  startSetup: () =>
    mutationOptions({
      mutationKey: [...securityQueries.all, 'setup'] as const,
      mutationFn: (): Promise<TotpSetup> => unwrap(api.POST('/api/users/2fa/totp/setup')),
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadStatus(client),
    }),
  /** POST /api/users/2fa/totp/confirm — the first code turns it on; the recovery codes come back this once. */
  confirm: () =>
    mutationOptions({
      mutationKey: [...securityQueries.all, 'confirm'] as const,
      mutationFn: (code: string) => unwrap(api.POST('/api/users/2fa/totp/confirm', { body: { code } })).then((r) => r.recovery_codes),
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadStatus(client),
    }),
  /** POST /api/users/2fa/totp/disable — a current code (or a recovery code) turns it off. */
  disable: () =>
    mutationOptions({
      mutationKey: [...securityQueries.all, 'disable'] as const,
      mutationFn: (proof: TwoFactorProof) => unwrap(api.POST('/api/users/2fa/totp/disable', { body: proof })),
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadStatus(client),
    }),
  /** POST /api/users/2fa/recovery-codes — new recovery codes (shown this once); the old ones stop working. */
  regenerate: () =>
    mutationOptions({
      mutationKey: [...securityQueries.all, 'recovery-codes'] as const,
      mutationFn: (proof: TwoFactorProof) => unwrap(api.POST('/api/users/2fa/recovery-codes', { body: proof })).then((r) => r.recovery_codes),
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadStatus(client),
    }),
};

/** Ending sessions, done or refused, is followed by reading the list again. */
const rereadSessions = (client: QueryClient) => void client.invalidateQueries({ queryKey: securityQueries.sessions().queryKey });

export const sessionMutations = {
  /** DELETE /api/users/sessions/{id} — ends one session: its tokens stop working at once. */
  revoke: () =>
    mutationOptions({
      mutationKey: [...securityQueries.all, 'sessions', 'revoke'] as const,
      mutationFn: async (id: string): Promise<void> => {
        await unwrap(api.DELETE('/api/users/sessions/{id}', { params: { path: { id } } }));
      },
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadSessions(client),
    }),
  /** POST /api/users/sessions/revoke-others — ends every session but this one. */
  revokeOthers: () =>
    mutationOptions({
      mutationKey: [...securityQueries.all, 'sessions', 'revoke-others'] as const,
      mutationFn: async (): Promise<void> => {
        await unwrap(api.POST('/api/users/sessions/revoke-others'));
      },
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadSessions(client),
    }),
};

export type Passkey = components['schemas']['Passkey'];

export const passkeyQueries = {
  all: [...securityQueries.all, 'passkeys'] as const,
  /** GET /api/users/passkeys — the caller's passkeys, oldest first. */
  list: () =>
    queryOptions({
      queryKey: passkeyQueries.all,
      queryFn: () => unwrap(api.GET('/api/users/passkeys')).then((r) => r.passkeys),
    }),
};

export const passkeyMutations = {
  /**
   * Add a passkey: the server's options → the browser's passkey dialog (@simplewebauthn/browser) → POST the answer.
   * The browser module is fetched only here, when someone adds one.
   */
  add: () =>
    mutationOptions({
      mutationKey: [...passkeyQueries.all, 'add'] as const,
      mutationFn: async (name: string) => {
        const optionsJSON = await unwrap(api.POST('/api/users/passkeys/registration-options'));
        const { startRegistration } = await import('@simplewebauthn/browser');
        const response = await startRegistration({ optionsJSON: optionsJSON as PublicKeyCredentialCreationOptionsJSON });
        return unwrap(
          api.POST('/api/users/passkeys', {
            body: { response: response as components['schemas']['RegistrationCredential'], ...(name.trim() ? { name: name.trim() } : {}) },
          }),
        );
      },
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadStatus(client),
    }),
  /** PATCH /api/users/passkeys/{id} — a new name. */
  rename: () =>
    mutationOptions({
      mutationKey: [...passkeyQueries.all, 'rename'] as const,
      mutationFn: ({ id, name }: { id: string; name: string }) =>
        unwrap(api.PATCH('/api/users/passkeys/{id}', { params: { path: { id } }, body: { name } })),
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadStatus(client),
    }),
  /** DELETE /api/users/passkeys/{id} — it no longer signs in. */
  remove: () =>
    mutationOptions({
      mutationKey: [...passkeyQueries.all, 'remove'] as const,
      mutationFn: async (id: string) => {
        await unwrap(api.DELETE('/api/users/passkeys/{id}', { params: { path: { id } } }));
      },
      onSettled: (_answer, _error, _vars, _ctx, { client }) => rereadStatus(client),
    }),
};
