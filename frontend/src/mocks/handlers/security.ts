import { example } from '../examples';
import { http } from '../http';

/** Tag `security`: the caller's two-factor sign-in and passkeys, answered with the spec's examples. */
export const securityHandlers = [
  http.get('/api/users/2fa', ({ response }) => response(200).json(example('/api/users/2fa', 'get', 200))),
  http.post('/api/users/2fa/totp/setup', ({ response }) => response(200).json(example('/api/users/2fa/totp/setup', 'post', 200))),
  http.post('/api/users/2fa/totp/confirm', ({ response }) => response(200).json(example('/api/users/2fa/totp/confirm', 'post', 200))),
  http.post('/api/users/2fa/totp/disable', ({ response }) => response(200).json(example('/api/users/2fa/totp/disable', 'post', 200))),
  http.post('/api/users/2fa/recovery-codes', ({ response }) => response(200).json(example('/api/users/2fa/recovery-codes', 'post', 200))),
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
