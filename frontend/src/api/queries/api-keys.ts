import { mutationOptions, queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { api, unwrap } from '../client';

export type ApiKey = components['schemas']['ApiKey'];
export type ApiKeyCreate = components['schemas']['ApiKeyCreate'];
export type ApiKeyCreated = components['schemas']['ApiKeyCreated'];

export const apiKeyQueries = {
  all: ['api-keys'] as const,

  /** GET /api/api-keys — the caller's keys, newest first, with what each has spent. */
  list: () =>
    queryOptions({
      queryKey: [...apiKeyQueries.all, 'list'] as const,
      queryFn: () => unwrap(api.GET('/api/api-keys')).then((r) => r.api_keys),
      // "Last used" moves while the page is open (a key used from a terminal, a sign-in on another device): read
      // again when the tab comes back into view.
      staleTime: 0,
      refetchOnWindowFocus: true,
    }),
};

export const apiKeyMutations = {
  /** POST /api/api-keys — the new key, shown this once; the list is read again. */
  create: () =>
    mutationOptions({
      mutationKey: [...apiKeyQueries.all, 'create'] as const,
      mutationFn: (body: ApiKeyCreate): Promise<ApiKeyCreated> => unwrap(api.POST('/api/api-keys', { body })),
      onSuccess: (_created, _body, _ctx, { client }) => void client.invalidateQueries({ queryKey: apiKeyQueries.all }),
    }),

  /** DELETE /api/api-keys/{id} — the key stops working at once; its row goes. */
  revoke: () =>
    mutationOptions({
      mutationKey: [...apiKeyQueries.all, 'revoke'] as const,
      mutationFn: async (id: string): Promise<void> => {
        await unwrap(api.DELETE('/api/api-keys/{id}', { params: { path: { id } } }));
      },
      onSuccess: (_result, id, _ctx, { client }) => {
        client.setQueryData(apiKeyQueries.list().queryKey, (keys) => keys?.filter((k) => k.id !== id));
        void client.invalidateQueries({ queryKey: apiKeyQueries.all });
      },
    }),
};
