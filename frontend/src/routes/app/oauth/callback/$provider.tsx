import { createFileRoute } from '@tanstack/react-router';
import { OAuthCallbackPage } from '../../../../features/auth/OAuthCallbackPage';

export const Route = createFileRoute('/app/oauth/callback/$provider')({
  component: OAuthCallbackPage,
});
