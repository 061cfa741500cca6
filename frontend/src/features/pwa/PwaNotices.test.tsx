import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, render, screen } from '@testing-library/react';
import { PwaNotices } from './PwaNotices';
import { pwaStore, resetInstallListening } from './store';

beforeEach(() => {
  pwaStore.reset();
  resetInstallListening();
});

describe('the site frame’s installable-app helpers (PwaNotices)', () => {
  it('shows nothing on an ordinary visit', () => {
    const { container } = render(<PwaNotices />);
    expect(container).toBeEmptyDOMElement();
  });

  it('listens for the install offer from the start and then shows the install banner', async () => {
    render(<PwaNotices />);
    const event = new Event('beforeinstallprompt', { cancelable: true }) as Event & { prompt: jest.Mock; userChoice: Promise<unknown> };
    event.prompt = jest.fn(async () => undefined);
    event.userChoice = Promise.resolve({ outcome: 'accepted' });
    act(() => void window.dispatchEvent(event));
    expect(event.defaultPrevented).toBe(true);
    expect(await screen.findByRole('region', { name: 'Install Glob Network' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Install' })).toBeInTheDocument();
  });

  it("shows 'Update Available' with Refresh when a new version is waiting", async () => {
    render(<PwaNotices />);
    act(() => pwaStore.showUpdate(() => undefined));
    expect(await screen.findByText('Update Available')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
  });
});
