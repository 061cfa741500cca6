import { Outlet, createFileRoute } from '@tanstack/react-router';
import { SiteLayout } from '../components/SiteLayout';

/** Pathless layout of the public marketing pages (the /app area has its own frame). */
export const Route = createFileRoute('/_site')({
  component: () => (
    <SiteLayout>
      <Outlet />
    </SiteLayout>
  ),
});
