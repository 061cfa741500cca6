import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { act, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { HttpResponse, http as plain } from 'msw';
import { STATS_REFRESH_MS } from '../../api/queries/system';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { testQueryClient } from '../../test/render';
import { StatsStrip } from './StatsStrip';

const renderStrip = () =>
  render(
    <QueryClientProvider client={testQueryClient()}>
      <StatsStrip />
    </QueryClientProvider>,
  );

const value = (label: string) => screen.getByText(label).nextElementSibling?.textContent;

afterEach(() => {
  jest.useRealTimers();
});

describe('StatsStrip', () => {
  it("shows '...' while loading, then the server's figures", async () => {
    server.use(
      http.get('/api/stats/platform', async ({ response }) => {
        await new Promise((r) => setTimeout(r, 50));
        return response(200).json({ ...example('/api/stats/platform', 'get', 200), active_users: 57, total_tasks: 3400, data_processed_gb: 1520 });
      }),
    );
    renderStrip();
    expect(value('Active Users')).toBe('...');
    expect(value('Tasks Processed')).toBe('...');
    expect(value('Data Processed')).toBe('...');
    await waitFor(() => expect(value('Active Users')).toBe('57'));
    expect(value('Tasks Processed')).toBe('3.4K+');
    expect(value('Data Processed')).toBe('1.5 TB');
  });

  it('silently shows the fallback figures when the server answers not ok', async () => {
    server.use(plain.get('http://localhost/api/stats/platform', () => HttpResponse.json({ message: 'boom' }, { status: 500 })));
    renderStrip();
    await waitFor(() => expect(value('Active Users')).toBe('2,847+'));
    expect(value('Tasks Processed')).toBe('1250.0K+');
    expect(value('Data Processed')).toBe('45.8 GB');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the fallback figures on a network error', async () => {
    server.use(plain.get('http://localhost/api/stats/platform', () => HttpResponse.error()));
    renderStrip();
    await waitFor(() => expect(value('Active Users')).toBe('2,847+'));
  });

  it('refreshes every 30 s', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    let calls = 0;
    server.use(
      http.get('/api/stats/platform', ({ response }) => {
        calls += 1;
        return response(200).json({ ...example('/api/stats/platform', 'get', 200), active_users: calls * 1000 });
      }),
    );
    renderStrip();
    await waitFor(() => expect(value('Active Users')).toBe('1,000+'));
    expect(calls).toBe(1);
    await act(async () => {
      jest.advanceTimersByTime(STATS_REFRESH_MS - 1000);
    });
    expect(calls).toBe(1);
    await act(async () => {
      jest.advanceTimersByTime(1000);
    });
    await waitFor(() => expect(value('Active Users')).toBe('2,000+'));
    expect(calls).toBe(2);
    expect(STATS_REFRESH_MS).toBe(30_000);
  });
});
