import { createFileRoute } from '@tanstack/react-router';
import { chatQueries } from '../../../api/queries/chat';

/**
 * A conversation by its id: /app/assistant/<id>. The assistant page (the parent route's component) stays mounted
 * between conversations and shows the one the URL names, so back and forward move between conversations. A
 * conversation that fails to load is the page's to report (with this browser's copy), so the loader never throws.
 */
export const Route = createFileRoute('/app/_shell/assistant/$conversationId')({
  loader: ({ context, params }) => context.queryClient.ensureQueryData(chatQueries.conversation(params.conversationId)).catch(() => undefined),
});
