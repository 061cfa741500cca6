import { createFileRoute } from '@tanstack/react-router';
import { apiKeyQueries } from '../../../api/queries/api-keys';
import { ApiKeysPage } from '../../../features/api-keys/ApiKeysPage';

export const Route = createFileRoute('/app/_shell/api-keys')({
  // Starts reading the keys while the page's code loads; the page shows its loading state meanwhile.
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(apiKeyQueries.list());
  },
  component: ApiKeysPage,
});
