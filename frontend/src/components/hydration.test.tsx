/**
 * Prerendered pages are hydrated (src/main.tsx): the first client render must produce the markup the build
 * wrote, even when the browser already knows more (cached API data, its OS, a new year). These tests hydrate
 * server markup in jsdom and fail on any hydration mismatch React reports.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { act } from '@testing-library/react';
import type { ReactNode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider, createMemoryHistory, createRootRoute, createRouter } from '@tanstack/react-router';
import { systemQueries } from '../api/queries/system';
import { StatsStrip } from '../features/home/StatsStrip';
import { testQueryClient } from '../test/render';
import { Footer } from './Footer';
import { useHydrated } from './useHydrated';

/** Hydrates `ui` over the markup `serverUi` rendered to; returns the container and React's mismatch reports. */
async function hydrate(serverUi: ReactNode, ui: ReactNode) {
  const container = document.createElement('div');
  container.innerHTML = renderToString(serverUi);
  document.body.appendChild(container);
  const firstChild = container.firstElementChild;
  const onRecoverableError = jest.fn();
  await act(async () => {
    hydrateRoot(container, ui, { onRecoverableError });
  });
  return { container, onRecoverableError, kept: container.firstElementChild === firstChild };
}

function Probe() {
  return <p>{useHydrated() ? 'client' : 'server'}</p>;
}

describe('hydration', () => {
  it('useHydrated is false on the server and while hydrating, true right after', async () => {
    const { container, onRecoverableError, kept } = await hydrate(<Probe />, <Probe />);
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(kept).toBe(true);
    expect(container.textContent).toBe('client');
  });

  it("the stats strip hydrates with '...' although the figures are cached, then shows them", async () => {
    const empty = testQueryClient();
    const cached = testQueryClient();
    cached.setQueryData(systemQueries.siteStats().queryKey, { active_users: 57, total_tasks: 3400, data_processed_gb: 1520 } as never);
    const strip = (client: ReturnType<typeof testQueryClient>) => (
      <QueryClientProvider client={client}>
        <StatsStrip />
      </QueryClientProvider>
    );
    const { container, onRecoverableError, kept } = await hydrate(strip(empty), strip(cached));
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(kept).toBe(true);
    expect(container.querySelector('[data-testid="stat-active-users"]')?.textContent).toBe('57');
    expect(container.querySelector('[data-testid="stat-tasks-processed"]')?.textContent).toBe('3.4K+');
  });

  it('the footer hydrates with the year the page was built in, then shows the current year', async () => {
    const footerApp = async () => {
      const router = createRouter({ routeTree: createRootRoute({ component: Footer }), history: createMemoryHistory() });
      await router.load();
      return <RouterProvider router={router} />;
    };
    jest.useFakeTimers({ now: new Date('2025-12-31T12:00:00Z'), doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate', 'setTimeout'] });
    const built = await footerApp();
    const server = renderToString(built);
    jest.setSystemTime(new Date('2026-01-02T12:00:00Z'));
    const container = document.createElement('div');
    container.innerHTML = server;
    expect(container.textContent).toContain('© 2025 Glob Network');
    document.body.appendChild(container);
    const onRecoverableError = jest.fn();
    const client = await footerApp();
    await act(async () => {
      hydrateRoot(container, client, { onRecoverableError });
    });
    jest.useRealTimers();
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(container.textContent).toContain('© 2026 Glob Network');
  });
});
