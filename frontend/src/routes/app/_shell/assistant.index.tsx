import { createFileRoute } from '@tanstack/react-router';

/** /app/assistant: the last conversation opens (the URL then names it), else a new one starts here. */
export const Route = createFileRoute('/app/_shell/assistant/')({
  // beforeLoad stays in the entry chunk: what it runs is fetched with the assistant, not with every page.
  beforeLoad: async (ctx) => (await import('../../../features/assistant/conversation')).openRemembered(ctx),
});
