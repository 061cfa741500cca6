import { createFileRoute } from '@tanstack/react-router';
import { securityQueries } from '../../../api/queries/security';
import { SecurityPage } from '../../../features/security/SecurityPage';

export const Route = createFileRoute('/app/_shell/security')({
  // Starts reading the status while the page's code loads; the page shows its loading state meanwhile.
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(securityQueries.twoFactor());
  },
  component: SecurityPage,
});
