import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { createAppRouter, createQueryClient } from './router';
import './styles/global.css';

const mocking = import.meta.env.VITE_API_MOCKING === '1';

async function start() {
  if (mocking) {
    const { startMocking } = await import('./mocks/browser');
    await startMocking();
  }
  const queryClient = createQueryClient();
  const router = createAppRouter(queryClient);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
  // The installable app's worker; on mocks the scope belongs to MSW's worker instead.
  if (!mocking && import.meta.env.PROD) {
    const { registerServiceWorker } = await import('./features/pwa/register');
    registerServiceWorker();
  }
}

void start();
