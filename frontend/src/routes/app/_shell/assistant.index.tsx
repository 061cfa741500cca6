import { createFileRoute } from '@tanstack/react-router';
import { openRemembered } from '../../../features/assistant/conversation';

/** /app/assistant: the last conversation opens (the URL then names it), else a new one starts here. */
export const Route = createFileRoute('/app/_shell/assistant/')({
  beforeLoad: openRemembered,
});
