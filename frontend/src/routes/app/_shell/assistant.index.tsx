import { createFileRoute } from '@tanstack/react-router';

/** /app/assistant: the assistant opens the last conversation (or a new one); the URL then names it. */
export const Route = createFileRoute('/app/_shell/assistant/')({});
