import { example } from '../examples';
import { http } from '../http';

/** Tag `wallet`: balance, history, earnings, transfers, purchases and the payment webhook. */
export const walletHandlers = [
  http.get('/api/wallet/packages', ({ response }) => response(200).json(example('/api/wallet/packages', 'get', 200))),
  http.get('/api/wallet/{userId}', ({ response }) => response(200).json(example('/api/wallet/{userId}', 'get', 200))),
  http.get('/api/wallet/{userId}/balance', ({ response }) => response(200).json(example('/api/wallet/{userId}/balance', 'get', 200))),
  http.get('/api/wallet/{userId}/stats', ({ response }) => response(200).json(example('/api/wallet/{userId}/stats', 'get', 200))),
  http.get('/api/wallet/{userId}/history', ({ response }) => response(200).json(example('/api/wallet/{userId}/history', 'get', 200))),
  http.get('/api/wallet/{userId}/earnings', ({ response }) => response(200).json(example('/api/wallet/{userId}/earnings', 'get', 200))),
  http.post('/api/wallet/{userId}/transfer', ({ response }) => response(201).json(example('/api/wallet/{userId}/transfer', 'post', 201))),
  http.post('/api/wallet/{userId}/purchase', ({ response }) => response(201).json(example('/api/wallet/{userId}/purchase', 'post', 201))),
  http.get('/api/users/{userId}/transactions', ({ response }) => response(200).json(example('/api/users/{userId}/transactions', 'get', 200))),
  http.post('/api/payments/stripe/webhook', ({ response }) => response(200).json(example('/api/payments/stripe/webhook', 'post', 200))),
];
