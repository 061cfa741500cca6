import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { components } from '@glob/contract';
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
