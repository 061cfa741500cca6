import { createFileRoute } from '@tanstack/react-router';
import { apiKeyQueries } from '../../../api/queries/api-keys';
import { inferenceQueries } from '../../../api/queries/inference';
import { ApiKeysPage } from '../../../features/api-keys/ApiKeysPage';

export const Route = createFileRoute('/app/_shell/api-keys')({
  // Starts reading the keys (and the examples' model, for their cost) while the page's code loads; the page shows its loading state meanwhile.
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(apiKeyQueries.list());
    void context.queryClient.prefetchQuery(inferenceQueries.models());
  },
  component: ApiKeysPage,
});
