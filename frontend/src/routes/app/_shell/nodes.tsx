import { createFileRoute } from '@tanstack/react-router';
import { nodeQueries } from '../../../api/queries/nodes';
import { NodesPage } from '../../../features/nodes/NodesPage';

export const Route = createFileRoute('/app/_shell/nodes')({
  // Starts reading the list (the page's own query options) while the page's code loads; the page shows its
  // loading state meanwhile. The signed-in layout's beforeLoad has already sent signed-out visitors away.
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(nodeQueries.list());
  },
  component: NodesPage,
});
