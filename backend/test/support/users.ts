import type { TestStack } from './app';

let n = 0;

/** A signed-up user (plain register) with its token; each gets the configured welcome bonus. */
export async function newUser(stack: TestStack, name = 'user') {
  const email = `${name}-${Date.now().toString(36)}-${++n}@example.com`;
  const res = await stack.http.post('/api/users/register').send({ email, password: 'a quiet mountain stream', username: name });
  if (res.status !== 201) throw new Error(`register ${res.status}: ${res.text}`);
  const id = res.body.user.id as string;
  const auth = { Authorization: `Bearer ${res.body.access_token as string}` };
  const wallet = await stack.http.get(`/api/wallet/${id}`).set(auth);
  return { id, email, auth, token: res.body.access_token as string, address: wallet.body.address as string };
}
