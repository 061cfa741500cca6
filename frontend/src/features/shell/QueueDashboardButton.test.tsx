import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { browser } from '../auth/browser';
import { QUEUE_DASHBOARD_FAILED } from './QueueDashboardButton';
import { renderApp, signIn } from './testing';

beforeEach(() => localStorage.clear());
afterEach(() => {
  jest.restoreAllMocks();
});

const sidebar = () => within(screen.getByRole('complementary', { name: 'Sidebar' }));

/** GET /api/users/me answers the spec's user with this role. */
function meAs(role: 'user' | 'admin') {
  server.use(http.get('/api/users/me', ({ response }) => response(200).json({ user: { ...example('/api/users/me', 'get', 200).user, role } })));
}

describe('Queue dashboard entry in the sidebar', () => {
  it('is not shown to an account that is not an operator', async () => {
    let served = 0;
    server.use(
      http.get('/api/users/me', ({ response }) => {
        served += 1;
        return response(200).json(example('/api/users/me', 'get', 200));
      }),
    );
    signIn();
    await renderApp('/app/dashboard');
    await waitFor(() => expect(served).toBe(1));
    expect(sidebar().getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(sidebar().queryByRole('button', { name: 'Queue dashboard' })).toBeNull();
    expect(screen.queryByText('Queue dashboard')).toBeNull();
  });

  it('is not shown from a stored user alone: the server says who is an operator', async () => {
    let served = 0;
    server.use(
      http.get('/api/users/me', ({ response }) => {
        served += 1;
        return response(200).json({ user: { ...example('/api/users/me', 'get', 200).user, role: 'user' } });
      }),
    );
    signIn({ role: 'admin' });
    await renderApp('/app/dashboard');
    await waitFor(() => expect(served).toBe(1));
    expect(sidebar().getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(screen.queryByText('Queue dashboard')).toBeNull();
  });

  it('opens the dashboard for an operator: the session call, then the browser goes to /admin/queues', async () => {
    const user = userEvent.setup();
    const assign = jest.spyOn(browser, 'assign').mockImplementation(() => undefined);
    let opened = 0;
    server.use(
      http.post('/api/admin/queues/session', ({ response }) => {
        opened += 1;
        return response(200).json(example('/api/admin/queues/session', 'post', 200));
      }),
    );
    meAs('admin');
    signIn();
    await renderApp('/app/dashboard');
    const button = await sidebar().findByRole('button', { name: 'Queue dashboard' });
    expect(assign).not.toHaveBeenCalled();
    await user.click(button);
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/admin/queues'));
    expect(opened).toBe(1);
  });

  it('says so when the dashboard does not open (no longer an operator), and stays in the app', async () => {
    const user = userEvent.setup();
    const assign = jest.spyOn(browser, 'assign').mockImplementation(() => undefined);
    server.use(
      http.post('/api/admin/queues/session', ({ response }) => response(404).json({ statusCode: 404, message: 'Not found', error: 'Not Found' })),
    );
    meAs('admin');
    signIn();
    await renderApp('/app/dashboard');
    await user.click(await sidebar().findByRole('button', { name: 'Queue dashboard' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(QUEUE_DASHBOARD_FAILED);
    expect(assign).not.toHaveBeenCalled();
  });
});
