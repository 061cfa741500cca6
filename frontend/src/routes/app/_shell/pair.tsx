import { createFileRoute } from '@tanstack/react-router';
import { nodeQueries } from '../../../api/queries/nodes';
import { PairPage } from '../../../features/nodes/PairPage';
import { pairCodeParam } from '../../../features/nodes/pairCode';

export const Route = createFileRoute('/app/_shell/pair')({
  // `?code=`: the code the machine shows (its app opens this page with it); the owner may type it here too.
  validateSearch: (search: Record<string, unknown>): { code?: string } => {
    const code = pairCodeParam(search.code);
    return code ? { code } : {};
  },
  // Starts looking the code up (the page's own query options) while the page's code loads. The signed-in layout's
  // beforeLoad has already sent signed-out visitors to sign in, keeping this address to come back to.
  loaderDeps: ({ search }) => ({ code: search.code }),
  loader: ({ context, deps }) => {
    if (deps.code) void context.queryClient.prefetchQuery(nodeQueries.pendingDevice(deps.code));
  },
  component: PairPage,
});
