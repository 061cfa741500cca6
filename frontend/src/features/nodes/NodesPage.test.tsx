import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import spec from '@glob/contract/openapi.json';
import { ALLOCATION_RANGES, NODES_POLL_MS } from '../../api/queries/nodes';
import { formatDateTime } from '../../components/format';
import { example } from '../../mocks/examples';
import { resetNodesMock } from '../../mocks/handlers/nodes';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { tokenStore } from '../../api/tokens';
import { renderWithProviders, visitRoute } from '../../test/render';
import { NodesPage } from './NodesPage';
import { NODES_TEXTS } from './texts';

const LIST = example('/api/nodes', 'get', 200);
const NODE = LIST.nodes[0]!;
const TOKEN = example('/api/nodes/join-tokens', 'post', 201);

const render = () => renderWithProviders(<NodesPage />, { path: '/app/nodes' });
const card = (name: string) => screen.getByRole('heading', { level: 3, name }).closest('li') as HTMLElement;
const fact = (scope: HTMLElement, term: string) => within(scope).getByText(term, { selector: 'dt' }).nextElementSibling as HTMLElement;

/** Records the body of every PATCH /api/nodes/{id} and the id of every DELETE, then lets the stateful mock answer. */
function recordCalls() {
  const patches: { id: string; body: unknown }[] = [];
  const deletes: string[] = [];
  server.events.on('request:start', ({ request }) => {
    const url = new URL(request.url);
    const id = /^\/api\/nodes\/([0-9a-f-]{36})$/.exec(url.pathname)?.[1];
    if (!id) return;
    if (request.method === 'PATCH')
      void request
        .clone()
        .json()
        .then((body) => patches.push({ id, body }));
    if (request.method === 'DELETE') deletes.push(id);
  });
  return { patches, deletes };
}

beforeEach(() => resetNodesMock());
afterEach(() => {
  server.events.removeAllListeners();
  jest.useRealTimers();
});

describe('NodesPage', () => {
  it('shows what each node computes on and its agent version, and says when the platform requires an update', async () => {
    server.use(
      http.get('/api/nodes', ({ response }) =>
        response(200).json({
          nodes: [
            { ...NODE, agent_version: '0.0.9', update_required: true, compute: { backend: 'cuda', vram_bytes: 24 * 2 ** 30 } },
            { ...NODE, id: '00000000-0000-4000-8000-00000000beef', name: 'quiet-box', agent_version: null, compute: null },
          ],
        }),
      ),
    );
    await render();
    const old = await waitFor(() => card(NODE.name));
    expect(fact(old, 'Agent version')).toHaveTextContent('0.0.9');
    expect(fact(old, 'Computes on')).toHaveTextContent('CUDA, 24 GB');
    expect(within(old).getByText(NODES_TEXTS.updateRequired)).toBeInTheDocument();
    const quiet = card('quiet-box');
    expect(fact(quiet, 'Agent version')).toHaveTextContent('Not reported');
    expect(fact(quiet, 'Computes on')).toHaveTextContent('Not reported');
    expect(within(quiet).queryByText(NODES_TEXTS.updateRequired)).toBeNull();
  });

  it('opens a node’s earnings: tokens served, hours online, GLOB per online hour, its checks, and the days as a chart and a table', async () => {
    const EARNINGS = example('/api/nodes/earnings/{id}', 'get', 200);
    await render();
    const node = await waitFor(() => card(NODE.name));
    await userEvent.click(within(node).getByText(NODES_TEXTS.earningsTitle));
    await waitFor(() => expect(fact(node, 'Tokens served')).toHaveTextContent('48,210'));
    expect(fact(node, 'Hours online')).toHaveTextContent('166.4');
    expect(fact(node, 'GLOB per online hour')).toHaveTextContent('4.21 GLOB');
    expect(fact(node, 'Failed verifications of its work')).toHaveTextContent('None');
    expect(within(node).getByRole('img', { name: '612.5 GLOB earned and 87.5 GLOB pending for 48,210 tokens served.' })).toBeInTheDocument();
    // One bar per day, earned and pending together; the table has a row per day.
    expect(node.querySelectorAll('rect.earnings-bar')).toHaveLength(EARNINGS.daily.length);
    expect(within(node).getAllByRole('row')).toHaveLength(EARNINGS.daily.length + 1);
  });

  it('lists each node with the figures of GET /api/nodes', async () => {
    await render();
    expect(screen.getByRole('heading', { level: 1, name: 'Your nodes' })).toBeInTheDocument();
    const node = await waitFor(() => card(NODE.name));
    expect(within(node).getByText('Online')).toHaveClass('badge');
    expect(fact(node, 'Last seen')).toHaveTextContent(formatDateTime(NODE.last_seen_at!));
    expect(within(fact(node, 'Last seen')).getByText(formatDateTime(NODE.last_seen_at!))).toHaveAttribute('datetime', NODE.last_seen_at);
    // uptime_30d 0.93
    expect(fact(node, 'Uptime (30 days)')).toHaveTextContent('93%');
    // 8 cores, 34359738368 bytes = 32 GB, gpu null, linux/x64
    expect(fact(node, 'Machine')).toHaveTextContent('8 cores · 32 GB · CPU only · linux/x64');
    expect(fact(node, 'Models')).toHaveTextContent('llama-3.2-1b-instruct');
    expect(fact(node, 'Hardware score')).toHaveTextContent('1.2 (41.5 tokens/s measured)');
    expect(fact(node, 'Tasks served')).toHaveTextContent('128');
    expect(fact(node, 'GLOB earned')).toHaveTextContent('3,712.5 GLOB');
    expect(fact(node, 'GLOB pending')).toHaveTextContent('87.5 GLOB');
    // allocation 50 / 40 / 60 % and 50 GB within the spec's ranges
    const cpu = within(node).getByRole('slider', { name: 'CPU (10–80%)' });
    expect(cpu).toHaveValue('50');
    expect(cpu).toHaveAttribute('min', '10');
    expect(cpu).toHaveAttribute('max', '80');
    expect(within(node).getByRole('slider', { name: 'Memory (20–70%)' })).toHaveValue('40');
    expect(within(node).getByRole('slider', { name: 'GPU (0–90%)' })).toHaveValue('60');
    expect(within(node).getByRole('slider', { name: 'Disk (1–4000 GB)' })).toHaveValue('50');
    expect(within(node).getByText(NODES_TEXTS.noGpu)).toBeInTheDocument();
  });

  it('says in plain words why the platform paused a node, and nothing when it did not', async () => {
    const reason = 'The platform paused this node: it missed the first-token deadline of 3 jobs in a row.';
    server.use(
      http.get('/api/nodes', ({ response }) =>
        response(200).json({
          nodes: [
            { ...NODE, status: 'paused', paused_reason: reason },
            { ...NODE, id: `${NODE.id.slice(0, -1)}9`, name: 'other-pc' },
          ],
        }),
      ),
    );
    await render();
    expect(within(await waitFor(() => card(NODE.name))).getByText(reason)).toBeInTheDocument();
    expect(within(card('other-pc')).queryByText(/The platform paused/)).toBeNull();
  });

  it('shows how to pair a machine when there are no nodes', async () => {
    server.use(http.get('/api/nodes', ({ response }) => response(200).json({ nodes: [] })));
    await render();
    expect(await screen.findByText('No nodes yet')).toBeInTheDocument();
    expect(screen.getByText(NODES_TEXTS.emptyText)).toBeInTheDocument();
    expect(screen.queryByRole('list')).toBeNull();
    // The desktop app is the way to share a computer: its card links to the downloads page.
    const desktop = screen.getByRole('region', { name: NODES_TEXTS.desktopTitle });
    expect(within(desktop).getByRole('link', { name: NODES_TEXTS.desktopLink })).toHaveAttribute('href', '/downloads');
  });

  it('pairs a node: shows the exact command of POST /api/nodes/join-tokens, its validity, and copies it', async () => {
    const user = userEvent.setup();
    // After setup(): user-event puts its own clipboard stub in place.
    const writeText = jest.fn(async (_text: string) => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await render();
    await user.click(screen.getByRole('button', { name: 'Pair a new node' }));
    const panel = await screen.findByRole('region', { name: 'Pair a new node' });
    expect(within(panel).getByTestId('join-command')).toHaveTextContent(TOKEN.command, { normalizeWhitespace: false });
    expect(within(panel).getByTestId('join-command').tagName).toBe('CODE');
    // The package the command runs, from this platform, with its SHA-256.
    expect(within(panel).getByTestId('join-package')).toHaveTextContent(NODES_TEXTS.pairPackage(TOKEN.agent!.version, TOKEN.agent!.sha256));
    expect(within(panel).getByText(NODES_TEXTS.pairValidity, { exact: false })).toHaveTextContent('valid for 15 minutes and works once');
    expect(within(panel).getByText(formatDateTime(TOKEN.expires_at))).toHaveAttribute('datetime', TOKEN.expires_at);
    // Focus moves to the panel, so a screen reader hears it.
    expect(within(panel).getByRole('heading', { level: 2 })).toHaveFocus();

    await user.click(within(panel).getByRole('button', { name: 'Copy command' }));
    expect(writeText).toHaveBeenCalledWith(TOKEN.command);
    expect(await within(panel).findByText('Copied!')).toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('region', { name: 'Pair a new node' })).toBeNull();
  });

  it('pauses and resumes a node with PATCH /api/nodes/{id} {paused}', async () => {
    const { patches } = recordCalls();
    const user = userEvent.setup();
    await render();
    await user.click(await screen.findByRole('button', { name: `Pause ${NODE.name}` }));
    await waitFor(() => expect(within(card(NODE.name)).getByText('Paused')).toHaveClass('badge-warn'));
    expect(patches).toEqual([{ id: NODE.id, body: { paused: true } }]);

    await user.click(screen.getByRole('button', { name: `Resume ${NODE.name}` }));
    await waitFor(() => expect(within(card(NODE.name)).getByText('Online')).toBeInTheDocument());
    expect(patches[1]).toEqual({ id: NODE.id, body: { paused: false } });
  });

  it('renames a node inline with PATCH {name}; Escape cancels; an empty name is refused', async () => {
    const { patches } = recordCalls();
    const user = userEvent.setup();
    await render();
    await user.click(await screen.findByRole('button', { name: `Rename ${NODE.name}` }));
    const input = screen.getByRole('textbox', { name: 'Node name' });
    expect(input).toHaveValue(NODE.name);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Node name' })).toBeNull();
    expect(screen.getByRole('button', { name: `Rename ${NODE.name}` })).toHaveFocus();

    await user.click(screen.getByRole('button', { name: `Rename ${NODE.name}` }));
    await user.clear(screen.getByRole('textbox', { name: 'Node name' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('Enter a name')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Node name' })).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('textbox', { name: 'Node name' })).toHaveFocus();

    await user.type(screen.getByRole('textbox', { name: 'Node name' }), 'study-mac');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('heading', { level: 3, name: 'study-mac' })).toBeInTheDocument();
    expect(patches).toEqual([{ id: NODE.id, body: { name: 'study-mac' } }]);
  });

  it('renaming starts from the current name without the last error, and an unchanged name closes the form unsent', async () => {
    const { patches } = recordCalls();
    const user = userEvent.setup();
    await render();
    await user.click(await screen.findByRole('button', { name: `Rename ${NODE.name}` }));
    await user.clear(screen.getByRole('textbox', { name: 'Node name' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('Enter a name')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));

    await user.click(screen.getByRole('button', { name: `Rename ${NODE.name}` }));
    const input = screen.getByRole('textbox', { name: 'Node name' });
    expect(input).toHaveValue(NODE.name);
    expect(input).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText('Enter a name')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.queryByRole('textbox', { name: 'Node name' })).toBeNull();
    expect(screen.getByRole('button', { name: `Rename ${NODE.name}` })).toHaveFocus();
    expect(patches).toEqual([]);
  });

  it('saves the allocation with PATCH {allocation}, all four shares together', async () => {
    const { patches } = recordCalls();
    const user = userEvent.setup();
    await render();
    const node = await waitFor(() => card(NODE.name));
    const save = within(node).getByRole('button', { name: 'Save allocation' });
    expect(save).toBeDisabled();
    fireEvent.change(within(node).getByRole('slider', { name: 'CPU (10–80%)' }), { target: { value: '70' } });
    fireEvent.change(within(node).getByRole('slider', { name: 'Memory (20–70%)' }), { target: { value: '25' } });
    fireEvent.change(within(node).getByRole('slider', { name: 'Disk (1–4000 GB)' }), { target: { value: '120' } });
    expect(within(node).getByText('70%', { selector: 'output' })).toBeInTheDocument();
    expect(within(node).getByText('120 GB', { selector: 'output' })).toBeInTheDocument();
    await user.click(save);
    expect(await within(node).findByText('Saved')).toBeInTheDocument();
    expect(patches).toEqual([{ id: NODE.id, body: { allocation: { cpu_percent: 70, memory_percent: 25, gpu_percent: 60, disk_gb: 120 } } }]);
    expect(within(node).getByRole('slider', { name: 'CPU (10–80%)' })).toHaveValue('70');
    expect(save).toBeDisabled();
  });

  it('Cancel drops an unsaved allocation and shows the node’s own values again', async () => {
    const { patches } = recordCalls();
    const user = userEvent.setup();
    await render();
    const node = await waitFor(() => card(NODE.name));
    const cpu = within(node).getByRole('slider', { name: 'CPU (10–80%)' });
    const before = (cpu as HTMLInputElement).value;
    fireEvent.change(cpu, { target: { value: '70' } });
    expect(within(node).getByRole('button', { name: 'Save allocation' })).toBeEnabled();
    await user.click(within(node).getByRole('button', { name: 'Cancel' }));
    expect(cpu).toHaveValue(before);
    expect(within(node).getByRole('button', { name: 'Save allocation' })).toBeDisabled();
    expect(within(node).queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(patches).toEqual([]);
  });

  it('revokes only after confirmation in a dialog, then DELETE /api/nodes/{id} removes the node', async () => {
    const { deletes } = recordCalls();
    const user = userEvent.setup();
    await render();
    const revoke = await screen.findByRole('button', { name: `Revoke ${NODE.name}` });
    await user.click(revoke);
    let dialog = screen.getByRole('alertdialog', { name: 'Revoke this node?' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveTextContent('It stops serving at once and must be paired again.');
    // Focus starts on the safe choice and stays in the dialog.
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole('button', { name: 'Revoke node' })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    // Escape closes it without revoking; focus returns to the button that opened it.
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(revoke).toHaveFocus();
    expect(deletes).toEqual([]);

    await user.click(revoke);
    dialog = screen.getByRole('alertdialog', { name: 'Revoke this node?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke node' }));
    expect(await screen.findByText('No nodes yet')).toBeInTheDocument();
    expect(deletes).toEqual([NODE.id]);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'Your nodes' })).toHaveFocus();
    expect(screen.getByText(`${NODE.name} was revoked.`)).toBeInTheDocument();
  });

  it('re-reads the list every 10 s, so a newly paired node appears without a reload', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    await render();
    const nodesList = () => within(screen.getByRole('region', { name: 'Your nodes' }));
    await waitFor(() => expect(nodesList().getAllByRole('heading', { level: 3 })).toHaveLength(1));
    // The agent on the new machine pairs (POST /api/nodes/register).
    await act(async () => {
      await fetch('http://localhost/api/nodes/register', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...example('/api/nodes/register', 'post', 201), join_token: TOKEN.join_token, name: 'study-mac' }),
      });
    });
    await act(async () => {
      jest.advanceTimersByTime(NODES_POLL_MS - 1_000);
    });
    expect(screen.queryByRole('heading', { level: 3, name: 'study-mac' })).toBeNull();
    await act(async () => {
      jest.advanceTimersByTime(1_000);
    });
    const fresh = await screen.findByRole('heading', { level: 3, name: 'study-mac' });
    expect(within(fresh.closest('li')!).getByText('Online')).toBeInTheDocument();
    expect(NODES_POLL_MS).toBe(10_000);
  });

  it('shows the server message when an update is refused', async () => {
    server.use(
      http.patch('/api/nodes/{id}', ({ response }) => response(404).json({ statusCode: 404, message: 'Node not found', error: 'Not Found' })),
    );
    const user = userEvent.setup();
    await render();
    await user.click(await screen.findByRole('button', { name: `Pause ${NODE.name}` }));
    expect(await within(card(NODE.name)).findByRole('alert')).toHaveTextContent('Node not found');
  });
});

describe('/app/nodes', () => {
  afterEach(() => localStorage.clear());

  it('is the signed-in page "Your nodes", reached from the sidebar', async () => {
    tokenStore.setUser(example('/api/users/me', 'get', 200).user);
    tokenStore.set({ access_token: 'access-token', refresh_token: 'refresh-token' });
    await visitRoute('/app/nodes');
    expect(await screen.findByRole('heading', { level: 1, name: 'Your nodes' })).toBeInTheDocument();
    const link = within(screen.getByRole('navigation', { name: 'App' })).getByRole('link', { name: 'Your nodes' });
    expect(link).toHaveAttribute('href', '/app/nodes');
    expect(link).toHaveAttribute('aria-current', 'page');
    await waitFor(() => expect(document.title).toBe('Your nodes — Glob Network'));
    expect(await screen.findByRole('heading', { level: 3, name: NODE.name })).toBeInTheDocument();
  });

  it('sends a visitor who is not signed in to /app/auth', async () => {
    localStorage.clear();
    const router = await visitRoute('/app/nodes');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
  });
});

describe('allocation ranges', () => {
  it('are the spec NodeAllocation minimum, maximum and default', () => {
    const schema = (spec as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> } })
      .components.schemas.NodeAllocation!;
    expect(ALLOCATION_RANGES).toEqual(
      Object.fromEntries(
        Object.entries(schema.properties).map(([key, p]) => {
          const { minimum, maximum, default: def } = p as { minimum: number; maximum: number; default: number };
          return [key, { minimum, maximum, default: def }];
        }),
      ),
    );
  });
});
