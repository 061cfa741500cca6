import { example } from '../examples';
import { http } from '../http';

/** Tag `security`: the caller's two-factor sign-in, answered with the spec's examples. */
export const securityHandlers = [
  http.get('/api/users/2fa', ({ response }) => response(200).json(example('/api/users/2fa', 'get', 200))),
  http.post('/api/users/2fa/totp/setup', ({ response }) => response(200).json(example('/api/users/2fa/totp/setup', 'post', 200))),
  http.post('/api/users/2fa/totp/confirm', ({ response }) => response(200).json(example('/api/users/2fa/totp/confirm', 'post', 200))),
  http.post('/api/users/2fa/totp/disable', ({ response }) => response(200).json(example('/api/users/2fa/totp/disable', 'post', 200))),
  http.post('/api/users/2fa/recovery-codes', ({ response }) => response(200).json(example('/api/users/2fa/recovery-codes', 'post', 200))),
];
