import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { DownloadsPage } from './DownloadsPage';
import type { Platform } from './platform';
import { PROGRESS_CLEAR_MS, PROGRESS_TICK_MS } from './useDownloads';

const HOST = 'https://releases.globnetwork.io/latest.json';
const release = example('/api/releases/latest', 'get', 200);

async function setup(platform: Platform, deps: Parameters<typeof DownloadsPage>[0]['deps'] = {}) {
  const open = jest.fn<(url: string, name: string) => void>();
  const utils = await renderWithProviders(<DownloadsPage platform={platform} deps={{ open, random: () => 0.5, ...deps }} />, { path: '/downloads' });
  await screen.findByRole('heading', { level: 1, name: 'Download Glob Network' });
  return { open, ...utils };
}

const card = (name: string) => screen.getByRole('heading', { level: 3, name }).closest('li') as HTMLElement;
const status = () => document.querySelector('.release-status')?.textContent;

afterEach(() => {
  jest.useRealTimers();
});

describe('downloads page states', () => {
  it('shows the loading badge, then the latest release with (Beta)', async () => {
    server.use(
      http.get('/api/releases/latest', async ({ response }) => {
        await new Promise((r) => setTimeout(r, 30));
        return response(200).json({ ...release, version: '0.2.0-beta1', is_prerelease: true });
      }),
    );
    await setup('windows');
    expect(status()).toBe('Loading Release Info...');
    const primary = screen.getByRole('button', { name: /Download for Windows/ });
    expect(primary).toBeDisabled();
    expect(within(primary).getByText('SOON')).toBeInTheDocument();
    await waitFor(() => expect(status()).toBe('Latest: v0.2.0-beta1 (Beta)'));
    expect(screen.getByRole('button', { name: /Download for Windows/ })).toBeEnabled();
    expect(within(screen.getByRole('button', { name: /Download for Windows/ })).getByText('READY')).toBeInTheDocument();
    const webApp = screen.getByRole('link', { name: /Try Web App/ });
    expect(webApp).toHaveAttribute('href', '/app/auth');
    expect(webApp).toHaveAttribute('target', '_blank');
  });

  it('does not append (Beta) to a stable release', async () => {
    await setup('windows');
    await waitFor(() => expect(status()).toBe('Latest: v0.1.0'));
  });

  it("shows the release's notice as a warning banner", async () => {
    server.use(http.get('/api/releases/latest', ({ response }) => response(200).json({ ...release, notice: 'macOS build is being re-signed.' })));
    await setup('macos');
    expect(await screen.findByRole('note')).toHaveTextContent('macOS build is being re-signed.');
  });

  it('highlights the detected OS card and never offers mobile', async () => {
    await setup('macos');
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    expect(screen.getByRole('button', { name: /Download for macOS/ })).toBeEnabled();
    const mac = card('macOS');
    expect(mac).toHaveClass('is-current');
    expect(within(mac).getByText('Your OS')).toBeInTheDocument();
    expect(within(mac).getByText('Available')).toBeInTheDocument();
    expect(within(card('Windows')).queryByText('Your OS')).toBeNull();
    const mobile = card('Mobile');
    expect(within(mobile).getByText('Soon')).toBeInTheDocument();
    expect(within(mobile).getByRole('button', { name: 'Coming Soon' })).toBeDisabled();
  });

  it('disables the primary button for a platform without an asset (Android)', async () => {
    await setup('android');
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    const primary = screen.getByRole('button', { name: /Download for Android/ });
    expect(primary).toBeDisabled();
    expect(within(primary).getByText('SOON')).toBeInTheDocument();
    expect(within(card('Mobile')).getByText('Your OS')).toBeInTheDocument();
  });

  it('disables the primary button when the asset list is empty', async () => {
    server.use(http.get('/api/releases/latest', ({ response }) => response(200).json({ ...release, assets: [] })));
    await setup('windows');
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    expect(screen.getByRole('button', { name: /Download for Windows/ })).toBeDisabled();
    expect(within(card('Windows')).getByText('Soon')).toBeInTheDocument();
    expect(within(card('Windows')).getByRole('button', { name: 'Coming Soon' })).toBeDisabled();
  });

  it("shows 'Coming Soon' and 'Notify Me When Ready' when no release exists", async () => {
    server.use(plain.get(HOST, () => HttpResponse.json({ version: null })));
    await setup('windows');
    await waitFor(() => expect(status()).toBe('Coming Soon'));
    expect(screen.getByRole('alert')).toHaveTextContent('Could not fetch latest release information.');
    const primary = screen.getByRole('button', { name: /Download for Windows/ });
    expect(primary).toBeDisabled();
    expect(within(primary).getByText('SOON')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Notify Me When Ready' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Try Web App/ })).toBeNull();
  });

  it('offers no file of the built-in fallback release when every source fails: Soon and Coming Soon everywhere', async () => {
    server.use(
      plain.get(HOST, () => HttpResponse.error()),
      http.get('/api/releases/latest', () => HttpResponse.error()),
      plain.get('http://localhost/latest.json', () => HttpResponse.error()),
    );
    await setup('linux');
    await waitFor(() => expect(status()).toBe('Latest: v0.1.0-beta3 (Beta)'));
    const primary = screen.getByRole('button', { name: /Download for Linux/ });
    expect(primary).toBeDisabled();
    expect(within(primary).getByText('SOON')).toBeInTheDocument();
    for (const name of ['Windows', 'macOS', 'Linux', 'Mobile']) {
      expect(within(card(name)).getByText('Soon')).toBeInTheDocument();
      expect(within(card(name)).getByRole('button', { name: 'Coming Soon' })).toBeDisabled();
    }
    expect(document.querySelector('.release-file')).toBeNull();
  });

  it('shows the roadmap and the Stay Updated block', async () => {
    await setup('windows');
    for (const step of ['Beta Release', 'Mobile Apps', 'Stable Release']) expect(screen.getByRole('heading', { name: step })).toBeInTheDocument();
    expect(screen.getByText('Q1 2026')).toBeInTheDocument();
    expect(screen.getByText('Q2 2026')).toBeInTheDocument();
    const stay = screen.getByRole('region', { name: 'Stay Updated' });
    expect(within(stay).getByRole('link', { name: /Discord/ })).toHaveAttribute('href', 'https://discord.gg/globnetwork');
    expect(within(stay).getByRole('link', { name: 'Open Web App' })).toHaveAttribute('href', '/app/auth');
  });
});

describe('downloads: the release files', () => {
  const asset = (name: string) => release.assets.find((a) => a.name === name)!;
  /** A card's files as shown: its button, what it is, and the checksum beside it. */
  const files = (name: string) =>
    [...card(name).querySelectorAll<HTMLElement>('.release-file')].map((item) => ({
      item,
      button: within(item).getByRole('button').textContent,
      kind: item.querySelector('.release-file-kind')?.textContent,
      label: item.querySelector('dt')?.textContent,
      sha256: item.querySelector('dd code')?.textContent,
    }));

  it('offers each platform its files: the .msi and the .zip, Apple Silicon and Intel, the .tar.gz and the .deb', async () => {
    await setup('windows');
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    const rows = (name: string) => files(name).map(({ button, kind }) => [button, kind]);
    expect(rows('Windows')).toEqual([
      ['Download', 'Installer (.msi) · 55.4 MB'],
      ['Download .zip', 'Portable (.zip) · 60.0 MB'],
    ]);
    expect(rows('macOS')).toEqual([
      ['Download', 'Apple Silicon (.zip) · 52.6 MB'],
      ['Download for Intel', 'Intel (.zip) · 54.7 MB'],
    ]);
    expect(rows('Linux')).toEqual([
      ['Download', 'Any distribution (.tar.gz) · 61.3 MB'],
      ['Download .deb', 'Debian/Ubuntu (.deb) · 59.0 MB'],
    ]);
    expect(card('Mobile').querySelector('.release-file')).toBeNull();
    // The cards promise the builds there are: one app per Mac processor on the macOS its runtime needs, no AppImage.
    expect(card('macOS')).toHaveTextContent('macOS 13.5+ (Intel & Apple Silicon)');
    expect(card('macOS')).toHaveTextContent('Apple Silicon & Intel builds');
    expect(card('Linux')).toHaveTextContent('DEB & tar.gz formats');
    expect(card('Linux')).not.toHaveTextContent('AppImage');
    // The second file's button is the smaller one.
    expect(within(card('Windows')).getByRole('button', { name: 'Download .zip' })).toHaveClass('btn-sm');
  });

  it("shows each file's own SHA-256, whole, labelled, beside the button that downloads that file", async () => {
    const { open } = await setup('macos');
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    const shown = ['Windows', 'macOS', 'Linux'].flatMap(files);
    expect(shown).toHaveLength(6);
    for (const { item, label, sha256 } of shown) {
      expect(label).toBe('SHA-256');
      expect(sha256).toMatch(/^[0-9a-f]{64}$/);
      await userEvent.click(within(item).getByRole('button'));
      const [url, name] = open.mock.calls.at(-1)!;
      expect(asset(name)).toMatchObject({ download_url: url, sha256 });
    }
    expect(new Set(shown.map((f) => f.sha256)).size).toBe(6);
  });

  it.each([
    ['windows', 'Windows', 'GlobNetwork-0.1.0-windows-x64.msi'],
    ['macos', 'macOS', 'GlobNetwork-0.1.0-macos-arm64.zip'],
    ['linux', 'Linux', 'globnetwork_0.1.0_amd64.deb'],
  ] as const)('on %s, “Download for %s” downloads %s', async (platform, label, file) => {
    const { open } = await setup(platform);
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    await userEvent.click(screen.getByRole('button', { name: new RegExp(`Download for ${label}`) }));
    await waitFor(() => expect(open).toHaveBeenCalledWith(asset(file).download_url, file));
    expect(screen.getByText(new RegExp(`v0\\.1\\.0 · ${file.replace(/\./g, '\\.')}`))).toBeInTheDocument();
  });
});

describe('downloads: analytics, progress and failures', () => {
  it('posts analytics before opening the file, then runs and clears the progress', async () => {
    const events: string[] = [];
    let body: unknown;
    server.use(
      http.post('/api/system/analytics/download', async ({ request, response }) => {
        body = await request.json();
        events.push('analytics');
        return response(201).json(example('/api/system/analytics/download', 'post', 201));
      }),
    );
    const { open } = await setup('windows');
    open.mockImplementation(() => void events.push('open'));
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    await act(async () => {
      within(card('Windows')).getByRole('button', { name: 'Download' }).click();
    });
    await waitFor(() => expect(open).toHaveBeenCalledTimes(1));
    expect(events).toEqual(['analytics', 'open']);
    expect(open).toHaveBeenCalledWith(
      'http://localhost:3000/api/releases/files/0.1.0/GlobNetwork-0.1.0-windows-x64.msi',
      'GlobNetwork-0.1.0-windows-x64.msi',
    );
    expect(body).toMatchObject({ platform: 'windows', asset: 'GlobNetwork-0.1.0-windows-x64.msi', userAgent: navigator.userAgent });
    expect(new Date((body as { timestamp: string }).timestamp).toString()).not.toBe('Invalid Date');

    const windows = card('Windows');
    expect(within(windows).getByRole('button', { name: 'Downloading... 0%' })).toBeDisabled();
    expect(within(windows).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '0');
    // The primary button downloads the same file: it shows the same progress.
    expect(screen.getAllByRole('button', { name: /Downloading\.\.\. 0%/ })).toHaveLength(2);

    // random() = 0.5 -> +10 every 0.5 s
    await act(async () => {
      jest.advanceTimersByTime(PROGRESS_TICK_MS);
    });
    expect(within(windows).getByRole('button', { name: 'Downloading... 10%' })).toBeInTheDocument();
    await act(async () => {
      jest.advanceTimersByTime(PROGRESS_TICK_MS * 4);
    });
    expect(within(windows).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '50');
    await act(async () => {
      jest.advanceTimersByTime(PROGRESS_TICK_MS * 5);
    });
    expect(within(windows).getByRole('button', { name: 'Downloading... 100%' })).toBeInTheDocument();
    await act(async () => {
      jest.advanceTimersByTime(PROGRESS_CLEAR_MS - 1);
    });
    expect(within(windows).getByRole('button', { name: 'Downloading... 100%' })).toBeInTheDocument();
    await act(async () => {
      jest.advanceTimersByTime(1);
    });
    expect(within(windows).getByRole('button', { name: 'Download' })).toBeEnabled();
    expect(within(windows).queryByRole('progressbar')).toBeNull();
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('tracks each file separately', async () => {
    const { open } = await setup('linux');
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    const linux = card('Linux');
    await act(async () => {
      within(linux).getByRole('button', { name: 'Download .deb' }).click();
    });
    await waitFor(() => expect(open).toHaveBeenCalledWith(expect.stringContaining('.deb'), 'globnetwork_0.1.0_amd64.deb'));
    expect(within(linux).getByRole('button', { name: 'Download' })).toBeEnabled();
    expect(within(linux).getAllByRole('progressbar')).toHaveLength(1);
  });

  it('only logs an analytics failure and still downloads', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    server.use(
      http.post('/api/system/analytics/download', ({ response }) =>
        response(429).json({ statusCode: 429, message: 'Too many requests. Please try again in 60 seconds.', error: 'Too Many Requests' }),
      ),
    );
    const { open } = await setup('windows');
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    await userEvent.click(screen.getByRole('button', { name: /Download for Windows/ }));
    await waitFor(() => expect(open).toHaveBeenCalledTimes(1));
    expect(warn).toHaveBeenCalledWith(
      'Download tracking failed:',
      expect.objectContaining({ message: 'Too many requests. Please try again in 60 seconds.' }),
    );
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('logs a failed download and removes its progress entry', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { open } = await setup('windows');
    open.mockImplementation(() => {
      throw new Error('popup blocked');
    });
    await waitFor(() => expect(status()).toMatch(/^Latest/));
    await userEvent.click(within(card('Windows')).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('Download failed:', expect.any(Error)));
    expect(within(card('Windows')).getByRole('button', { name: 'Download' })).toBeEnabled();
    expect(screen.queryByRole('progressbar')).toBeNull();
  });
});
