import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { DASHBOARD_REFRESH_MS } from '../../api/queries/system';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { endSession } from '../session/session';
import { ME, signIn } from '../wallet/testing';
import { DashboardPage } from './DashboardPage';

const WALLET = example('/api/wallet/{userId}', 'get', 200);
const STATS = example('/api/system/stats/platform', 'get', 200);

/** The card whose h3 is `title`. */
const card = (title: string) => screen.getByRole('heading', { level: 3, name: title }).closest('li') as HTMLElement;

const render = () => renderWithProviders(<DashboardPage />, { path: '/app/dashboard' });

beforeEach(() => signIn());
afterEach(() => {
  jest.useRealTimers();
  localStorage.clear();
});

describe('DashboardPage', () => {
  it("shows 'Loading dashboard...' and then the welcome line and the three cards from the live API", async () => {
    const seen: string[] = [];
    server.use(
      http.get('/api/wallet/{userId}', async ({ params, response }) => {
        seen.push(params.userId);
        await new Promise((r) => setTimeout(r, 30));
        return response(200).json({ ...WALLET, balance: 1000 });
      }),
      http.get('/api/system/stats/platform', ({ response }) =>
        response(200).json({ ...STATS, connected_peers: 3, active_nodes: 4, active_tasks: 7, pending_tasks: 2, success_rate: 97.5 }),
      ),
    );
    await render();
    expect(screen.getByRole('status')).toHaveTextContent('Loading dashboard...');
    expect(await screen.findByRole('heading', { level: 3, name: 'Token Balance' })).toBeInTheDocument();
    expect(screen.queryByText('Loading dashboard...')).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeInTheDocument();
    expect(screen.getByText('Welcome back, ada!')).toBeInTheDocument();
    expect(seen).toEqual([ME.id]);

    const balance = card('Token Balance');
    expect(balance).toHaveTextContent('1,000 GLOB');
    // 0.008 USD per GLOB
    expect(within(balance).getByText('≈ $8.00 USD')).toBeInTheDocument();
    expect(within(balance).getByText('+12.5%')).toBeInTheDocument();

    expect(card('Connected Peers')).toHaveTextContent('3');
    expect(within(card('Connected Peers')).getByText('4 nodes online')).toBeInTheDocument();
    expect(card('Active Tasks')).toHaveTextContent('7');
    expect(within(card('Active Tasks')).getByText(/97\.5% success rate · 2 pending/)).toBeInTheDocument();
  });

  it('says "1 node online", and no success rate before any task has finished', async () => {
    const stats = example('/api/system/stats/platform', 'get', 200);
    server.use(http.get('/api/system/stats/platform', ({ response }) => response(200).json({ ...stats, active_nodes: 1, success_rate: null })));
    await render();
    await screen.findByRole('heading', { level: 3, name: 'Connected Peers' });
    expect(await within(card('Connected Peers')).findByText('1 node online')).toBeInTheDocument();
    expect(within(card('Active Tasks')).getByText(/— success rate/)).toBeInTheDocument();
  });

  it('uses the e-mail local part when the user has no username', async () => {
    signIn({ ...ME, username: '' });
    await render();
    expect(await screen.findByText('Welcome back, ada!')).toBeInTheDocument();
  });

  it('falls back to 1247 peers, 89 tasks, 156 nodes when the network stats fail, and to zeros when the wallet fails', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    server.use(
      plain.get('http://localhost/api/system/stats/platform', () => HttpResponse.json({ message: 'down' }, { status: 500 })),
      plain.get('http://localhost/api/wallet/:userId', () => HttpResponse.error()),
    );
    await render();
    await screen.findByRole('heading', { level: 3, name: 'Token Balance' });
    expect(card('Token Balance')).toHaveTextContent('0 GLOB');
    expect(within(card('Token Balance')).getByText('≈ $0.00 USD')).toBeInTheDocument();
    expect(card('Connected Peers')).toHaveTextContent('1,247');
    expect(within(card('Connected Peers')).getByText('156 nodes online')).toBeInTheDocument();
    expect(card('Active Tasks')).toHaveTextContent('89');
    // failures are only logged
    expect(screen.queryByRole('alert')).toBeNull();
    expect(logged).toHaveBeenCalled();
  });

  it('logs nothing for the figures still loading when the session ends (logout drops them; they did not fail)', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const arrived: string[] = [];
    // Both answer long after the logout: their requests are still on their way when it drops them.
    const late = (what: string) => async () => {
      arrived.push(what);
      await new Promise((r) => setTimeout(r, 5_000));
      return HttpResponse.json({});
    };
    server.use(
      plain.get('http://localhost/api/system/stats/platform', late('stats')),
      plain.get('http://localhost/api/wallet/:userId', late('wallet')),
    );
    await render();
    await waitFor(() => expect(arrived.sort()).toEqual(['stats', 'wallet']));
    await act(() => endSession());
    // The dropped requests settle (an AbortError each) before anything is checked.
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(logged).not.toHaveBeenCalled();
  });

  it('refreshes the balance and the network figures every 10 s', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    let walletCalls = 0;
    let statsCalls = 0;
    server.use(
      http.get('/api/wallet/{userId}', ({ response }) => {
        walletCalls += 1;
        return response(200).json({ ...WALLET, balance: walletCalls * 100 });
      }),
      http.get('/api/system/stats/platform', ({ response }) => {
        statsCalls += 1;
        return response(200).json({ ...STATS, connected_peers: statsCalls * 10 });
      }),
    );
    await render();
    await waitFor(() => expect(card('Token Balance')).toHaveTextContent('100 GLOB'));
    expect(card('Connected Peers')).toHaveTextContent('10');
    expect([walletCalls, statsCalls]).toEqual([1, 1]);
    await act(async () => {
      jest.advanceTimersByTime(DASHBOARD_REFRESH_MS - 500);
    });
    expect([walletCalls, statsCalls]).toEqual([1, 1]);
    await act(async () => {
      jest.advanceTimersByTime(500);
    });
    await waitFor(() => expect(card('Token Balance')).toHaveTextContent('200 GLOB'));
    expect(card('Connected Peers')).toHaveTextContent('20');
    expect([walletCalls, statsCalls]).toEqual([2, 2]);
    expect(DASHBOARD_REFRESH_MS).toBe(10_000);
  });

  it('offers the quick actions and lists the feature access', async () => {
    await render();
    const actions = await screen.findByRole('region', { name: 'Quick Actions' });
    expect(within(actions).getByRole('link', { name: /^AI Assistant/ })).toHaveAttribute('href', '/app/assistant');
    expect(within(actions).getByRole('link', { name: /^Buy Tokens/ })).toHaveAttribute('href', '/app/wallet');
    const download = within(actions).getByRole('link', { name: /^Download Desktop/ });
    expect(download).toHaveAttribute('href', 'https://releases.globnetwork.io');
    expect(download).toHaveAttribute('target', '_blank');
    expect(download.getAttribute('rel')).toContain('noopener');

    const features = screen.getByRole('region', { name: 'Feature Access' });
    const rows = within(features)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(rows).toEqual([
      'AI AssistantAvailable',
      'Token WalletAvailable',
      'Resource SharingDesktop Only',
      'P2P NetworkDesktop Only',
      'Model TrainingDesktop Only',
      'Advanced AnalyticsDesktop Only',
    ]);
  });

  it('shows the 5 newest notifications and marks one read', async () => {
    const asked: (string | null)[] = [];
    const marked: string[] = [];
    let list = example('/api/users/{id}/notifications', 'get', 200);
    server.use(
      http.get('/api/users/{id}/notifications', ({ request, response }) => {
        asked.push(new URL(request.url).searchParams.get('limit'));
        return response(200).json(list);
      }),
      http.put('/api/notifications/{id}/read', ({ params, response }) => {
        marked.push(params.id);
        list = {
          ...list,
          unread_count: 0,
          notifications: list.notifications.map((n) => ({ ...n, read: true, read_at: '2026-11-22T08:10:41.000Z' })),
        };
        return response(200).json(example('/api/notifications/{id}/read', 'put', 200));
      }),
    );
    await render();
    const notes = await screen.findByRole('region', { name: 'Recent Notifications' });
    expect(await within(notes).findByText('Tokens received')).toBeInTheDocument();
    expect(within(notes).getByText('Your welcome bonus of 1000 GLOB has been added to your wallet.')).toBeInTheDocument();
    expect(within(notes).getByText('1 unread')).toBeInTheDocument();
    expect(asked[0]).toBe('5');

    await userEvent.click(within(notes).getByRole('button', { name: 'Mark as read: Tokens received' }));
    await waitFor(() => expect(within(notes).queryByRole('button', { name: /Mark as read/ })).toBeNull());
    expect(marked).toEqual(['3e8a1c5f-7b2d-4e9a-a6c1-0f4b8d2e7c93']);
    expect(within(notes).queryByText('1 unread')).toBeNull();
  });
});
