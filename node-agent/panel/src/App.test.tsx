import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { platformFixture, renderPanel, stateFixture, stubLocalApi, TEST_SECRET } from './test/local-api';
import { TEXTS } from './texts';

afterEach(() => {
  jest.restoreAllMocks();
});

const section = (name: string) => screen.findByRole('region', { name });

describe('control panel', () => {
  it('shows the pairing code and the page that confirms it while pairing', async () => {
    stubLocalApi(
      stateFixture({
        phase: 'pairing',
        node: null,
        allocation: null,
        models: [],
        device: {
          user_code: 'WDJB-MJHT',
          verification_uri_complete: 'https://globnetwork.io/app/pair?code=WDJB-MJHT',
          expires_at: '2026-11-25T09:30:00.000Z',
        },
      }),
    );
    renderPanel();
    expect(await screen.findByText('WDJB-MJHT')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Pairing');
    expect(screen.getByRole('link', { name: 'Confirm this code in your browser' })).toHaveAttribute(
      'href',
      'https://globnetwork.io/app/pair?code=WDJB-MJHT',
    );
    expect(screen.queryByRole('heading', { name: 'Resource Sharing' })).toBeNull();
  });

  it('asks for the platform address when it knows none, then starts pairing', async () => {
    const api = stubLocalApi(stateFixture({ phase: 'unpaired', api: null, node: null, allocation: null, models: [] }), null, (call) =>
      call.path === '/local/pair' ? { status: 200, body: stateFixture({ phase: 'pairing', node: null }) } : undefined,
    );
    renderPanel();
    await userEvent.type(await screen.findByLabelText('Platform address'), 'https://globnetwork.io');
    expect(screen.getByRole('status')).toHaveTextContent('Not paired');
    await userEvent.click(screen.getByRole('button', { name: 'Pair this computer' }));
    await waitFor(() => expect(api.posts()).toEqual([{ method: 'POST', path: '/local/pair', body: { api: 'https://globnetwork.io' } }]));
  });

  it('takes the secret off the address bar and keeps it for the tab', async () => {
    stubLocalApi(stateFixture());
    renderPanel();
    expect(await screen.findByRole('heading', { name: 'Resource Sharing' })).toBeInTheDocument();
    expect(window.location.hash).toBe('');
    expect(sessionStorage.getItem('glob-panel-secret')).toBe(TEST_SECRET);
  });

  it('opened without the secret (a bookmark), the app refuses the calls and the panel says where to open it', async () => {
    stubLocalApi(stateFixture(), null, () => ({ status: 403, body: { statusCode: 403, message: 'This request does not carry the panel’s secret' } }));
    renderPanel();
    expect(await screen.findByRole('alert')).toHaveTextContent(TEXTS.notOpenedByApp);
  });

  it('shows the phase and the node name in its header', async () => {
    stubLocalApi(stateFixture({ phase: 'paused', paused_reason: 'Paused while this computer runs on battery.' }));
    renderPanel();
    const banner = await screen.findByRole('banner');
    expect(within(banner).getByRole('heading', { name: 'Glob Network' })).toBeInTheDocument();
    expect(within(banner).getByRole('status')).toHaveTextContent('Paused');
    expect(within(banner).getByText('living-room-pc')).toBeInTheDocument();
    expect(within(banner).getByText('Paused while this computer runs on battery.')).toBeInTheDocument();
  });

  it('turns sharing off with POST /local/sharing {sharing: false}', async () => {
    const api = stubLocalApi(stateFixture());
    renderPanel();
    const share = await screen.findByRole('switch', { name: 'Share this computer' });
    expect(share).toHaveAttribute('aria-checked', 'true');
    await userEvent.click(share);
    await waitFor(() => expect(share).toHaveAttribute('aria-checked', 'false'));
    expect(api.posts()).toEqual([{ method: 'POST', path: '/local/sharing', body: { sharing: false } }]);
  });

  it('saves a changed allocation with all four values', async () => {
    const api = stubLocalApi(stateFixture());
    renderPanel();
    const sharing = await section('Resource Sharing');
    const save = within(sharing).getByRole('button', { name: 'Save allocation' });
    expect(save).toBeDisabled();
    fireEvent.change(within(sharing).getByRole('slider', { name: /CPU/ }), { target: { value: '70' } });
    fireEvent.change(within(sharing).getByRole('spinbutton', { name: /Disk for models/ }), { target: { value: '120' } });
    await userEvent.click(save);
    await waitFor(() =>
      expect(api.posts()).toEqual([
        { method: 'POST', path: '/local/allocation', body: { cpu_percent: 70, memory_percent: 40, gpu_percent: 60, disk_gb: 120 } },
      ]),
    );
    expect(await within(sharing).findByText('Saved')).toBeInTheDocument();
    expect(within(sharing).getByRole('slider', { name: /CPU/ })).toHaveValue('70');
  });

  it('sets idle-only sharing and start at login', async () => {
    const api = stubLocalApi(stateFixture());
    renderPanel();
    await userEvent.click(await screen.findByRole('switch', { name: 'Only while this computer is idle' }));
    const minutes = await screen.findByRole('spinbutton', { name: 'Idle for (minutes)' });
    await userEvent.clear(minutes);
    await userEvent.type(minutes, '15{Enter}');
    await userEvent.click(screen.getByRole('switch', { name: 'Start at login' }));
    await waitFor(() =>
      expect(api.posts()).toEqual([
        { method: 'POST', path: '/local/idle-only', body: { enabled: true, minutes: 5 } },
        { method: 'POST', path: '/local/idle-only', body: { enabled: true, minutes: 15 } },
        { method: 'POST', path: '/local/start-at-login', body: { enabled: true } },
      ]),
    );
  });

  it('shows a progress bar with its value while a model downloads, and the disk models use', async () => {
    stubLocalApi(stateFixture());
    renderPanel();
    const bar = await screen.findByRole('progressbar', { name: 'Downloading qwen2.5-7b-instruct' });
    expect(bar).toHaveAttribute('aria-valuenow', '25');
    expect(bar).toHaveAttribute('aria-valuetext', '1 GB of 4 GB');
    expect(screen.getAllByRole('progressbar')).toHaveLength(1);
    expect(screen.getByText('Models use 1.8 GB of the 50 GB allowed on disk.')).toBeInTheDocument();
  });

  it("shows the platform's figures in Advanced Analytics", async () => {
    stubLocalApi(stateFixture());
    renderPanel();
    const analytics = await section('Advanced Analytics');
    const figure = (label: string) => within(analytics).getByText(label, { selector: 'dt' }).nextElementSibling;
    await waitFor(() => expect(figure('Tokens served')).toHaveTextContent('48,210'));
    expect(figure('Tokens/s')).toHaveTextContent('41.5');
    expect(figure('Tasks')).toHaveTextContent('128');
    expect(figure('Failed checks')).toHaveTextContent('0');
    expect(figure('Uptime (30 days)')).toHaveTextContent('93%');
    expect(figure('Hours online')).toHaveTextContent('166.4');
    expect(figure('Hardware score')).toHaveTextContent('1.20');
    expect(figure('Memory')).toHaveTextContent('32 GB');
    expect(within(analytics).getByRole('img', { name: '87.5 GLOB earned and pending over the last 30 days.' })).toBeInTheDocument();
    const row = within(within(analytics).getByRole('table', { name: 'GLOB per model' })).getByRole('row', { name: /llama-3.2-1b-instruct/ });
    expect(row).toHaveTextContent('612.5 GLOB');
  });

  it('shows the balance and the rewards in Earning tokens, with the wallet a link away', async () => {
    stubLocalApi(stateFixture());
    renderPanel();
    const earnings = await section('Earning tokens');
    const figure = (label: string) => within(earnings).getByText(label, { selector: 'dt' }).nextElementSibling;
    await waitFor(() => expect(figure('Wallet balance')).toHaveTextContent('1,612.5 GLOB'));
    expect(figure('Pending rewards')).toHaveTextContent('87.5 GLOB');
    expect(figure('Paid rewards')).toHaveTextContent('612.5 GLOB');
    expect(within(earnings).getByRole('link', { name: 'Open wallet' })).toHaveAttribute('href', 'https://globnetwork.io/app/wallet');
  });

  it('says Model Training is coming', async () => {
    stubLocalApi(stateFixture());
    renderPanel();
    expect(within(await section('Model Training')).getByText('Model Training is coming to the desktop app.')).toBeInTheDocument();
  });

  it("creates a pool of this computer and the owner's ticked computers", async () => {
    const platform = platformFixture();
    const other = { ...platform.node, id: '0b7d7c1a-52e4-4d7a-9a3e-3f1c2b6d8e90', name: 'office-pc' };
    platform.owner_nodes = [platform.node, other];
    const api = stubLocalApi(stateFixture(), platform, (call) => (call.path === '/local/pools' ? { status: 201, body: {} } : undefined));
    renderPanel();
    const p2p = await section('P2P Network');
    await userEvent.type(await within(p2p).findByLabelText('Pool name'), 'home pool');
    await userEvent.type(within(p2p).getByLabelText('Model'), 'llama-3.2-1b-instruct');
    await userEvent.click(within(p2p).getByRole('checkbox', { name: /office-pc/ }));
    await userEvent.click(within(p2p).getByRole('button', { name: 'Create pool' }));
    await waitFor(() =>
      expect(api.posts()).toEqual([
        {
          method: 'POST',
          path: '/local/pools',
          body: { name: 'home pool', model_id: 'llama-3.2-1b-instruct', node_ids: [platform.node.id, other.id] },
        },
      ]),
    );
  });

  it('leaves a pool with DELETE /local/pools/:id', async () => {
    const platform = platformFixture();
    platform.pools = [
      {
        id: '5a0f7c2e-1d3b-4e6a-9c8d-2b4f6a8c0e13',
        name: 'home pool',
        model_id: 'llama-3.2-1b-instruct',
        status: 'healthy',
        model_layers: 16,
        model_bytes: 807_694_464,
        problem: null,
        created_at: '2026-11-24T10:00:00.000Z',
        members: [
          {
            node_id: platform.node.id,
            name: 'living-room-pc',
            role: 'coordinator',
            status: 'online',
            ready: true,
            memory_bytes: 1,
            layers: 8,
            layer_share: 0.5,
          },
        ],
      },
    ];
    const api = stubLocalApi(stateFixture(), platform, (call) => (call.method === 'DELETE' ? { status: 204 } : undefined));
    renderPanel();
    await userEvent.click(await screen.findByRole('button', { name: 'Leave home pool' }));
    await waitFor(() =>
      expect(api.posts()).toEqual([{ method: 'DELETE', path: '/local/pools/5a0f7c2e-1d3b-4e6a-9c8d-2b4f6a8c0e13', body: undefined }]),
    );
  });

  it('quits only once the owner confirms', async () => {
    const api = stubLocalApi(stateFixture());
    const confirm = jest.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    renderPanel();
    const quit = await screen.findByRole('button', { name: 'Quit' });
    await userEvent.click(quit);
    expect(api.posts()).toEqual([]);
    await userEvent.click(quit);
    expect(confirm).toHaveBeenCalledTimes(2);
    expect(await screen.findByText('Glob Network is quitting. You can close this page.')).toBeInTheDocument();
    expect(api.posts()).toEqual([{ method: 'POST', path: '/local/quit', body: {} }]);
  });

  it('shows the version and the last check, checks for updates on demand, and restarts to a ready update', async () => {
    const api = stubLocalApi(stateFixture({ update: { ...stateFixture().update, message: 'Up to date (0.1.0)' } }));
    const { unmount } = renderPanel();
    const updates = await screen.findByRole('group', { name: 'Version 0.1.0' });
    expect(updates).toHaveTextContent('Version 0.1.0 · Up to date (0.1.0)');
    await userEvent.click(within(updates).getByRole('button', { name: 'Check for updates' }));
    await waitFor(() => expect(api.posts()).toEqual([{ method: 'POST', path: '/local/update/check', body: {} }]));
    unmount();

    const ready = stubLocalApi(stateFixture({ update: { ...stateFixture().update, ready: true, phase: 'ready', version: '0.2.0' } }));
    renderPanel();
    const group = await screen.findByRole('group', { name: 'Version 0.1.0' });
    expect(group).toHaveTextContent('Version 0.2.0 is ready.');
    await userEvent.click(within(group).getByRole('button', { name: 'Restart to update' }));
    expect(await screen.findByText('Restarting as version 0.2.0. The control panel opens again once it has started.')).toBeInTheDocument();
    expect(ready.posts()).toEqual([{ method: 'POST', path: '/local/update/restart', body: {} }]);
  });

  it('a copy run from npm says how it is updated, with no update buttons', async () => {
    stubLocalApi(stateFixture({ update: { ...stateFixture().update, available: false } }));
    renderPanel();
    const group = await screen.findByRole('group', { name: 'Version 0.1.0' });
    expect(group).toHaveTextContent('This copy is updated with npm or its container image.');
    expect(within(group).queryByRole('button')).toBeNull();
  });
});
