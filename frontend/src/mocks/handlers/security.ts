import type { components } from '@glob/contract';
import { example } from '../examples';
import { http } from '../http';

type Session = components['schemas']['Session'];

/** The caller's sessions, in memory: the spec's example list at first; ending one removes it. */
let sessions: Session[] = [];

/** Back to the spec's example list (tests call it before each case). */
export function resetSessionsMock(): void {
  sessions = example('/api/users/sessions', 'get', 200).sessions;
}
resetSessionsMock();

/** Tag `security`: the caller's two-factor sign-in, answered with the spec's examples, and the caller's sessions. */
export const securityHandlers = [
  http.get('/api/users/2fa', ({ response }) => response(200).json(example('/api/users/2fa', 'get', 200))),
  http.post('/api/users/2fa/totp/setup', ({ response }) => response(200).json(example('/api/users/2fa/totp/setup', 'post', 200))),
  http.post('/api/users/2fa/totp/confirm', ({ response }) => response(200).json(example('/api/users/2fa/totp/confirm', 'post', 200))),
  http.post('/api/users/2fa/totp/disable', ({ response }) => response(200).json(example('/api/users/2fa/totp/disable', 'post', 200))),
  http.post('/api/users/2fa/recovery-codes', ({ response }) => response(200).json(example('/api/users/2fa/recovery-codes', 'post', 200))),
  http.get('/api/users/sessions', ({ response }) => response(200).json({ sessions })),
  http.delete('/api/users/sessions/{id}', ({ params, response }) => {
    sessions = sessions.filter((s) => s.id !== params.id);
    return response(204).empty();
  }),
  http.post('/api/users/sessions/revoke-others', ({ response }) => {
    sessions = sessions.filter((s) => s.current);
    return response(204).empty();
  }),
  http.get('/api/users/passkeys', ({ response }) => response(200).json(example('/api/users/passkeys', 'get', 200))),
  http.post('/api/users/passkeys/registration-options', ({ response }) =>
    response(200).json(example('/api/users/passkeys/registration-options', 'post', 200)),
  ),
  http.post('/api/users/passkeys', ({ response }) => response(201).json(example('/api/users/passkeys', 'post', 201))),
  http.patch('/api/users/passkeys/{id}', ({ response }) => response(200).json(example('/api/users/passkeys/{id}', 'patch', 200))),
  http.delete('/api/users/passkeys/{id}', ({ response }) => response(204).empty()),
  http.post('/api/users/passkeys/authentication-options', ({ response }) =>
    response(200).json(example('/api/users/passkeys/authentication-options', 'post', 200)),
  ),
  http.post('/api/users/login/passkey', ({ response }) => response(200).json(example('/api/users/login/passkey', 'post', 200))),
];
