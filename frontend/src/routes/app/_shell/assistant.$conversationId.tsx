import { createFileRoute } from '@tanstack/react-router';

/**
 * A conversation by its id: /app/assistant/<id>. The assistant page (the parent route's component) stays mounted
 * between conversations and opens the one the URL names, so back and forward move between conversations.
 */
export const Route = createFileRoute('/app/_shell/assistant/$conversationId')({});
