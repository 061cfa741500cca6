import { example } from '../examples';
import { http } from '../http';

/** Tag `accounts`: sign-in (and its two-factor step), sign-up, codes, OAuth, session and account deletion. */
export const accountsHandlers = [
  http.post('/api/users/login', ({ response }) => response(200).json(example('/api/users/login', 'post', 200))),
  http.post('/api/users/login/2fa', ({ response }) => response(200).json(example('/api/users/login/2fa', 'post', 200))),
  http.post('/api/users/register', ({ response }) => response(201).json(example('/api/users/register', 'post', 201))),
  http.post('/api/users/send-otp', ({ response }) => response(202).json(example('/api/users/send-otp', 'post', 202))),
  http.post('/api/users/verify-otp', ({ response }) => response(200).json(example('/api/users/verify-otp', 'post', 200))),
  http.post('/api/users/register-with-otp', ({ response }) => response(201).json(example('/api/users/register-with-otp', 'post', 201))),
  http.post('/api/users/reset-password', ({ response }) => response(200).json(example('/api/users/reset-password', 'post', 200))),
  http.post('/api/users/refresh', ({ response }) => response(200).json(example('/api/users/refresh', 'post', 200))),
  http.post('/api/users/logout', ({ response }) => response(204).empty()),
  http.get('/api/users/me', ({ response }) => response(200).json(example('/api/users/me', 'get', 200))),
  http.get('/api/users/oauth/providers', ({ response }) => response(200).json(example('/api/users/oauth/providers', 'get', 200))),
  http.get('/api/users/oauth/auth-url/{provider}', ({ response }) => response(200).json(example('/api/users/oauth/auth-url/{provider}', 'get', 200))),
  http.post('/api/users/oauth/callback/{provider}', ({ response }) =>
    response(200).json(example('/api/users/oauth/callback/{provider}', 'post', 200)),
  ),
  http.post('/api/users/auth/send-deletion-otp', ({ response }) => response(202).json(example('/api/users/auth/send-deletion-otp', 'post', 202))),
  http.post('/api/users/auth/verify-deletion-otp', ({ response }) => response(200).json(example('/api/users/auth/verify-deletion-otp', 'post', 200))),
  http.delete('/api/users/auth/delete-account', ({ response }) => response(200).json(example('/api/users/auth/delete-account', 'delete', 200))),
];
