import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { InstallBanner } from './InstallBanner';
import { UpdateNotice } from './UpdateNotice';
import { INSTALL_UNAVAILABLE, UPDATE_NOTICE_MS, pwaStore, resetInstallListening } from './store';

function installEvent(outcome: 'accepted' | 'dismissed' = 'accepted') {
  const event = new Event('beforeinstallprompt', { cancelable: true }) as Event & { prompt: jest.Mock; userChoice: Promise<unknown> };
  event.prompt = jest.fn(async () => undefined);
  event.userChoice = Promise.resolve({ outcome, platform: 'web' });
  return event;
}

beforeEach(() => {
  pwaStore.reset();
  resetInstallListening();
});
afterEach(() => {
  jest.useRealTimers();
});

describe('install banner', () => {
  it('stays hidden until the browser offers installation', () => {
    render(<InstallBanner />);
    expect(screen.queryByRole('region', { name: 'Install Glob Network' })).toBeNull();
  });

  it('shows when offered, installs through the prompt and disappears', async () => {
    const user = userEvent.setup();
    render(<InstallBanner />);
    const event = installEvent('accepted');
    act(() => void window.dispatchEvent(event));
    expect(event.defaultPrevented).toBe(true);
    expect(screen.getByRole('region', { name: 'Install Glob Network' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Install' }));
    expect(event.prompt).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('region', { name: 'Install Glob Network' })).toBeNull();
  });

  it('disappears on dismiss', async () => {
    const user = userEvent.setup();
    render(<InstallBanner />);
    act(() => void window.dispatchEvent(installEvent()));
    await user.click(screen.getByRole('button', { name: 'Not now' }));
    expect(screen.queryByRole('region', { name: 'Install Glob Network' })).toBeNull();
  });

  it('disappears when the app gets installed', () => {
    render(<InstallBanner />);
    act(() => void window.dispatchEvent(installEvent()));
    act(() => void window.dispatchEvent(new Event('appinstalled')));
    expect(screen.queryByRole('region', { name: 'Install Glob Network' })).toBeNull();
  });

  it("says 'Install prompt not available' when there is no prompt to show", async () => {
    render(<InstallBanner />);
    await act(() => pwaStore.install());
    expect(screen.getByRole('status')).toHaveTextContent(INSTALL_UNAVAILABLE);
    expect(INSTALL_UNAVAILABLE).toBe('Install prompt not available');
  });
});

describe("'Update Available' notice", () => {
  it('appears when a new worker is waiting, refreshes on click', async () => {
    const user = userEvent.setup();
    const update = jest.fn();
    render(<UpdateNotice />);
    expect(screen.queryByText('Update Available')).toBeNull();
    act(() => pwaStore.showUpdate(update));
    expect(screen.getByText('Update Available')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(update).toHaveBeenCalledTimes(1);
    expect(screen.queryByText('Update Available')).toBeNull();
  });

  it('vanishes by itself after 10 s', () => {
    jest.useFakeTimers();
    render(<UpdateNotice />);
    act(() => pwaStore.showUpdate(() => undefined));
    act(() => void jest.advanceTimersByTime(UPDATE_NOTICE_MS - 1));
    expect(screen.getByText('Update Available')).toBeInTheDocument();
    act(() => void jest.advanceTimersByTime(1));
    expect(screen.queryByText('Update Available')).toBeNull();
    expect(UPDATE_NOTICE_MS).toBe(10_000);
  });
});
