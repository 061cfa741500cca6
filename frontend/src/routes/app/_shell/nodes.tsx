import { createFileRoute } from '@tanstack/react-router';
import { nodeQueries } from '../../../api/queries/nodes';
import { NodesPage } from '../../../features/nodes/NodesPage';
import { readSession } from '../../../features/session/session';

export const Route = createFileRoute('/app/_shell/nodes')({
  // Starts reading the list while the page's code loads (signed in only: the guard sends anyone else to /app/auth).
  loader: ({ context }) => {
    if (readSession().signedIn) void context.queryClient.prefetchQuery(nodeQueries.list());
  },
  component: NodesPage,
});
