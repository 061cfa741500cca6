import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { formatDateTime } from '../../components/format';
import { example } from '../../mocks/examples';
import { resetSessionsMock } from '../../mocks/handlers/security';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { signIn } from '../shell/testing';
import { SessionsSection } from './SessionsSection';
import { SECURITY_TEXTS } from './texts';

const T = SECURITY_TEXTS.sessions;
const [current, other] = example('/api/users/sessions', 'get', 200).sessions;

beforeEach(() => {
  localStorage.clear();
  signIn();
  resetSessionsMock();
});

const rows = () => screen.getAllByTestId('session-row');
const rowOf = (device: string) => rows().find((r) => within(r).queryByText(device))!;

describe('SessionsSection', () => {
  it('lists each session with its device, IP, sign-in and last use, this one marked and not endable', async () => {
    await renderWithProviders(<SessionsSection />, { path: '/app/security' });
    await waitFor(() => expect(rows()).toHaveLength(2));

    const mine = rowOf(current!.device);
    expect(within(mine).getByText(T.current)).toBeInTheDocument();
    expect(mine).toHaveAttribute('aria-current', 'true');
    expect(within(mine).getByText(current!.ip!)).toBeInTheDocument();
    expect(within(mine).getByText(formatDateTime(current!.created_at))).toBeInTheDocument();
    expect(within(mine).getByText(formatDateTime(current!.last_used_at))).toBeInTheDocument();
    expect(within(mine).queryByRole('button', { name: T.end })).not.toBeInTheDocument();

    const theirs = rowOf(other!.device);
    expect(within(theirs).queryByText(T.current)).not.toBeInTheDocument();
    expect(within(theirs).getByText(other!.ip!)).toBeInTheDocument();
    expect(within(theirs).getByText(formatDateTime(other!.last_used_at))).toBeInTheDocument();
    expect(within(theirs).getByRole('button', { name: T.end })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: T.endOthers })).toBeInTheDocument();
  });

  it('ends another session after confirming, and asks the server for exactly that one', async () => {
    const ended: string[] = [];
    server.events.on('request:start', ({ request }) => {
      if (request.method === 'DELETE') ended.push(new URL(request.url).pathname);
    });
    const user = userEvent.setup();
    await renderWithProviders(<SessionsSection />, { path: '/app/security' });
    await waitFor(() => expect(rows()).toHaveLength(2));

    // Cancel ends nothing.
    await user.click(within(rowOf(other!.device)).getByRole('button', { name: T.end }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: T.cancel }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(ended).toEqual([]);

    await user.click(within(rowOf(other!.device)).getByRole('button', { name: T.end }));
    const dialog = screen.getByRole('alertdialog', { name: T.endTitle });
    expect(within(dialog).getByText(`${other!.device} (${other!.ip})`)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: T.end }));

    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(ended).toEqual([`/api/users/sessions/${other!.id}`]);
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(within(rows()[0]!).getByText(T.current)).toBeInTheDocument();
    // Nothing else to sign out of.
    expect(screen.queryByRole('button', { name: T.endOthers })).not.toBeInTheDocument();
    server.events.removeAllListeners();
  });

  it('signs out of all other sessions, leaving only this one', async () => {
    const user = userEvent.setup();
    await renderWithProviders(<SessionsSection />, { path: '/app/security' });
    await waitFor(() => expect(rows()).toHaveLength(2));
    await user.click(screen.getByRole('button', { name: T.endOthers }));
    const dialog = screen.getByRole('alertdialog', { name: T.endOthersTitle });
    await user.click(within(dialog).getByRole('button', { name: T.endOthers }));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(within(rows()[0]!).getByText(current!.device)).toBeInTheDocument();
    expect(within(rows()[0]!).getByText(T.current)).toBeInTheDocument();
  });

  it('shows the server’s message when a session cannot be ended, and keeps the dialog open', async () => {
    server.use(
      http.delete('/api/users/sessions/{id}', ({ response }) =>
        response(404).json({ statusCode: 404, message: 'Session not found', error: 'Not Found' }),
      ),
    );
    const user = userEvent.setup();
    await renderWithProviders(<SessionsSection />, { path: '/app/security' });
    await waitFor(() => expect(rows()).toHaveLength(2));
    await user.click(within(rowOf(other!.device)).getByRole('button', { name: T.end }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: T.end }));
    expect(await within(screen.getByRole('alertdialog')).findByRole('alert')).toHaveTextContent('Session not found');
  });
});
