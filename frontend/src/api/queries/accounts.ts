import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { updateUser } from '../../features/session/session';

/** GET /api/users/me — the signed-in user; a fresh copy is kept in local storage. */
export const meQuery = () =>
  queryOptions({
    queryKey: ['accounts', 'me'] as const,
    queryFn: async () => {
      const { user } = await unwrap(api.GET('/api/users/me'));
      updateUser(user);
      return user;
    },
    // 001 §2: user data is refreshed whenever the sidebar and top bar appear.
    staleTime: 0,
    retry: false,
  });
