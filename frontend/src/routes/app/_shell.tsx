import { createFileRoute } from '@tanstack/react-router';
import { requireSignIn } from '../../features/session/guard';
import { SignedInLayout } from '../../features/shell/SignedInLayout';

/** The signed-in area (pathless): signed-out visitors are redirected to /app/auth before it loads. */
export const Route = createFileRoute('/app/_shell')({
  beforeLoad: requireSignIn,
  component: SignedInLayout,
});
