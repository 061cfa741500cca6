import { beforeEach, describe, expect, it } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { SESSION_KEYS, renderApp, signIn } from './testing';

beforeEach(() => localStorage.clear());

const sidebar = () => screen.getByRole('complementary', { name: 'Sidebar' });

describe('AppShell', () => {
  it('shows the logo, initial, name, balance, the links and the top bar, then refreshes the user from /me', async () => {
    let meCalls = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.get('/api/users/me', async ({ response }) => {
        meCalls += 1;
        await held;
        return response(200).json({ user: { ...example('/api/users/me', 'get', 200).user, token_balance: 12345.678 } });
      }),
    );
    signIn({ username: 'ada', token_balance: 1000 });
    await renderApp('/app/dashboard');
    const side = within(sidebar());
    expect(side.getByText('Glob Network')).toBeInTheDocument();
    expect(sidebar().querySelector('img[src="/logo.svg"]')).not.toBeNull();
    expect(side.getByText('A')).toHaveClass('app-avatar');
    expect(side.getByText('ada')).toBeInTheDocument();
    expect(side.getByText('1,000 GLOB')).toBeInTheDocument();
    const top = within(screen.getByRole('banner'));
    expect(top.getByText('Welcome back, ada')).toBeInTheDocument();
    expect(top.getByText('Token Balance')).toBeInTheDocument();
    expect(top.getByRole('button', { name: 'Dark theme' })).toBeInTheDocument();

    // GET /api/users/me when the shell appears: the stored user and every balance follow.
    release();
    await waitFor(() => expect(side.getByText('12,345.68 GLOB')).toBeInTheDocument());
    expect(top.getByText('12,345.68 GLOB')).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('glob_user')!).token_balance).toBe(12345.678);
    expect(meCalls).toBe(1);

    const nav = within(screen.getByRole('navigation', { name: 'App' }));
    expect(nav.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/app/dashboard');
    expect(nav.getByRole('link', { name: 'AI Assistant' })).toHaveAttribute('href', '/app/assistant');
    expect(nav.getByRole('link', { name: 'Token Wallet' })).toHaveAttribute('href', '/app/wallet');
    expect(side.getByRole('link', { name: 'Download Desktop App' })).toHaveAttribute('href', '/downloads');
    expect(side.getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Skip to content' })).toHaveAttribute('href', '#main');
    expect(screen.getByRole('main')).toHaveAttribute('id', 'main');
    expect(within(screen.getByRole('main')).getByTestId('page')).toHaveTextContent('/app/dashboard');
    expect(document.title).toBe('Dashboard — Glob Network');
  });

  it('marks the current page’s link active and follows the links', async () => {
    const user = userEvent.setup();
    signIn();
    const { router } = await renderApp('/app/dashboard');
    const nav = within(screen.getByRole('navigation', { name: 'App' }));
    expect(nav.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
    expect(nav.getByRole('link', { name: 'Dashboard' })).toHaveClass('active');
    expect(nav.getByRole('link', { name: 'Token Wallet' })).not.toHaveAttribute('aria-current');
    await user.click(nav.getByRole('link', { name: 'Token Wallet' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/wallet'));
    expect(nav.getByRole('link', { name: 'Token Wallet' })).toHaveAttribute('aria-current', 'page');
    expect(nav.getByRole('link', { name: 'Dashboard' })).not.toHaveClass('active');
    expect(document.title).toBe('Token Wallet — Glob Network');
  });

  it('shows the e-mail when there is no username, its local part in the welcome, and reads tokens_balance too', async () => {
    const grace = {
      id: '7c2e9a41-1b3d-4f6e-8a2c-5d9e0f1b3a75',
      email: 'grace.hopper@example.com',
      username: '',
      tokens_balance: 2500.5,
      created_at: '2026-11-21T10:20:00.000Z',
    };
    let served = 0;
    server.use(
      plain.get('http://localhost/api/users/me', () => {
        served += 1;
        return HttpResponse.json({ user: grace });
      }),
    );
    signIn({ ...grace, token_balance: undefined });
    await renderApp('/app/assistant');
    await waitFor(() => expect(served).toBe(1));
    const side = within(sidebar());
    expect(side.getByText('grace.hopper@example.com')).toBeInTheDocument();
    expect(side.getByText('G')).toBeInTheDocument();
    expect(side.getByText('2,500.5 GLOB')).toBeInTheDocument();
    expect(screen.getByText('Welcome back, grace.hopper')).toBeInTheDocument();
  });

  it('opens and closes the small-screen menu (aria-expanded) and closes it on navigation', async () => {
    const user = userEvent.setup();
    signIn();
    const { router } = await renderApp('/app/dashboard');
    const menu = screen.getByRole('button', { name: 'Menu' });
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    expect(menu).toHaveAttribute('aria-controls', 'app-sidebar');
    expect(sidebar()).not.toHaveClass('is-open');
    await user.click(menu);
    expect(menu).toHaveAttribute('aria-expanded', 'true');
    expect(sidebar()).toHaveClass('is-open');
    await user.keyboard('{Escape}');
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    await user.click(menu);
    await user.click(within(sidebar()).getByRole('link', { name: 'AI Assistant' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/assistant'));
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    expect(sidebar()).not.toHaveClass('is-open');
  });

  it('Logout clears the stored session, revokes the refresh token and goes to /app/auth', async () => {
    const user = userEvent.setup();
    const revoked: unknown[] = [];
    server.use(
      http.post('/api/users/logout', async ({ request, response }) => {
        revoked.push(await request.json());
        return response(204).empty();
      }),
    );
    signIn();
    const { router } = await renderApp('/app/wallet');
    await user.click(screen.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    for (const key of SESSION_KEYS) expect(localStorage.getItem(key)).toBeNull();
    await waitFor(() => expect(revoked).toEqual([{ refresh_token: 'refresh-1' }]));
    expect(screen.queryByRole('complementary')).toBeNull();
  });
});

describe('AppGuard', () => {
  it('sends a visitor who is not signed in to /app/auth', async () => {
    const { router } = await renderApp('/app/wallet');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    expect(screen.queryByRole('complementary')).toBeNull();
  });

  it('shows the spinner while /me loads (token but no saved user), then the shell', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.get('/api/users/me', async ({ response }) => {
        await held;
        return response(200).json(example('/api/users/me', 'get', 200));
      }),
    );
    localStorage.setItem('access_token', 'access-1');
    localStorage.setItem('refresh_token', 'refresh-1');
    await renderApp('/app/dashboard');
    expect(screen.getByRole('status')).toHaveTextContent('Loading...');
    expect(screen.queryByRole('complementary')).toBeNull();
    await act(async () => release());
    expect(await screen.findByText('Welcome back, ada')).toBeInTheDocument();
    expect(screen.getByText('962.5 GLOB', { selector: '.app-user-balance' })).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).toBeNull();
  });

  it('goes to /app/auth when the server refuses the token and it cannot be refreshed', async () => {
    server.use(
      http.get('/api/users/me', ({ response }) => response(401).json(example('/api/users/me', 'get', 401))),
      http.post('/api/users/refresh', ({ response }) => response(401).json(example('/api/users/refresh', 'post', 401))),
    );
    signIn();
    const { router } = await renderApp('/app/dashboard');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    expect(localStorage.getItem('access_token')).toBeNull();
  });

  it('follows a sign-out in another tab (the storage event) to /app/auth', async () => {
    signIn();
    const { router } = await renderApp('/app/assistant');
    expect(sidebar()).toBeInTheDocument();
    // Another tab's logout: the keys vanish from the shared storage and this tab hears a `storage` event.
    act(() => {
      for (const key of SESSION_KEYS) localStorage.removeItem(key);
      window.dispatchEvent(new StorageEvent('storage', { key: 'access_token', oldValue: 'access-1', newValue: null }));
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    expect(screen.queryByRole('complementary')).toBeNull();
  });
});
