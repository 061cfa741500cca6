import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';
import type { components } from '@glob/contract';

type Operation = { responses: Record<string, { content: Record<string, { example: unknown }> }> };
const spec = createRequire(import.meta.url)('@glob/contract/openapi.json') as { paths: Record<string, Record<string, Operation>> };

/** The example answer the spec documents (what the mocks answer). */
export const example = <T>(path: string, method: string, status: number) =>
  spec.paths[path]![method]!.responses[String(status)]!.content['application/json']!.example as T;

/** The signed-in user of the mocked build. */
export const ME = example<{ user: components['schemas']['User'] }>('/api/users/me', 'get', 200).user;

/** A signed-in browser on the mocked build: tokens and the user as the app stores them after sign-in. */
export async function signIn(page: Page) {
  await page.addInitScript((user) => {
    for (const [access, refresh, key] of [
      ['access_token', 'refresh_token', 'user'],
      ['glob_access_token', 'glob_refresh_token', 'glob_user'],
    ]) {
      localStorage.setItem(access!, 'access-1');
      localStorage.setItem(refresh!, 'refresh-1');
      localStorage.setItem(key!, JSON.stringify(user));
    }
  }, ME);
}
