import { createFileRoute } from '@tanstack/react-router';
import { SignedInLayout } from '../../features/shell/SignedInLayout';

/** The signed-in area (pathless): signed-out visitors are redirected to /app/auth before it loads. */
export const Route = createFileRoute('/app/_shell')({
  // beforeLoad stays in the entry chunk: the guard (and the token store it reads) is fetched on the way into /app.
  beforeLoad: async (ctx) => (await import('../../features/session/guard')).requireSignIn(ctx),
  component: SignedInLayout,
});
