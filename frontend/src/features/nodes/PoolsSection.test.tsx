import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { components } from '@glob/contract';
import { formatDateTime } from '../../components/format';
import { example } from '../../mocks/examples';
import { resetNodesMock } from '../../mocks/handlers/nodes';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { NodesPage } from './NodesPage';
import { POOLS_TEXTS, POOL_STATUS_HINTS } from './texts';

type Pool = components['schemas']['Pool'];

const POOL = example('/api/nodes/pools', 'get', 200).pools[0]!;
const FORMING = example('/api/nodes/pools', 'post', 201);
const MODELS = example('/api/inference/models', 'get', 200).models;

const render = () => renderWithProviders(<NodesPage />, { path: '/app/nodes' });
const pools = () => screen.getByRole('region', { name: 'Pools' });
const poolCard = (name: string) => within(pools()).getByRole('heading', { level: 3, name }).closest('li') as HTMLElement;
const member = (pool: HTMLElement, name: string) =>
  within(within(pool).getByRole('list', { name: `Members of ${within(pool).getByRole('heading', { level: 3 }).textContent}` }))
    .getByText(name, { selector: '.pools-member-name' })
    .closest('li') as HTMLElement;
const fact = (scope: HTMLElement, term: string) => within(scope).getByText(term, { selector: 'dt' }).nextElementSibling as HTMLElement;

/** Records the body of every POST /api/nodes/pools and the id of every DELETE /api/nodes/pools/{poolId}. */
function recordCalls() {
  const creates: unknown[] = [];
  const deletes: string[] = [];
  server.events.on('request:start', ({ request }) => {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/api/nodes/pools')
      void request
        .clone()
        .json()
        .then((body) => creates.push(body));
    const id = /^\/api\/nodes\/pools\/([0-9a-f-]{36})$/.exec(url.pathname)?.[1];
    if (request.method === 'DELETE' && id) deletes.push(id);
  });
  return { creates, deletes };
}

/** A machine pairs through the mock (POST /api/nodes/register), as a node agent would; answers its id. */
async function pairNode(name: string): Promise<string> {
  const response = await fetch('http://localhost/api/nodes/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...example('/api/nodes/register', 'post', 201), join_token: 'x', name }),
  });
  return ((await response.json()) as { node_id: string }).node_id;
}

const withPools = (list: Pool[]) => server.use(http.get('/api/nodes/pools', ({ response }) => response(200).json({ pools: list })));

beforeEach(() => resetNodesMock());
afterEach(() => server.events.removeAllListeners());

describe('Pools on "Your nodes"', () => {
  it('lists each pool of GET /api/nodes/pools: status in words, model, and every member’s share of the layers', async () => {
    await render();
    const pool = await waitFor(() => poolCard(POOL.name));
    expect(within(pool).getByText('Healthy')).toHaveTextContent('Status: Healthy');
    expect(within(pool).getByText(POOL_STATUS_HINTS.healthy)).toBeInTheDocument();
    // The example's model is not in the example catalog: its id stands in for a name.
    expect(fact(pool, 'Model')).toHaveTextContent(POOL.model_id);
    // 141733920768 bytes = 132 GB; 80 layers
    expect(fact(pool, 'Model size')).toHaveTextContent('132 GB');
    expect(fact(pool, 'Layers')).toHaveTextContent('80');
    expect(fact(pool, 'Created')).toHaveTextContent(formatDateTime(POOL.created_at));
    expect(within(pool).queryByRole('alert')).toBeNull();

    const coordinator = member(pool, 'living-room-pc');
    expect(within(coordinator).getByText('Coordinator')).toHaveTextContent('Role: Coordinator');
    expect(fact(coordinator, 'Status')).toHaveTextContent('Online · Ready');
    expect(fact(coordinator, 'Share of the layers')).toHaveTextContent('40 of 80 layers · 50%');
    expect(fact(coordinator, 'Memory offered')).toHaveTextContent('64 GB');
    const shard = member(pool, 'office-tower');
    expect(within(shard).getByText('Shard')).toBeInTheDocument();
    expect(fact(shard, 'Share of the layers')).toHaveTextContent('20 of 80 layers · 25%');
    expect(fact(shard, 'Memory offered')).toHaveTextContent('32 GB');
    expect(within(pool).getAllByRole('listitem')).toHaveLength(3);
  });

  it('shows a degraded pool with its problem, and a forming pool before its split is planned', async () => {
    const degraded: Pool = {
      ...POOL,
      status: 'degraded',
      problem: 'garage-server is offline: the model is not offered until it returns.',
      members: POOL.members.map((m) => (m.name === 'garage-server' ? { ...m, status: 'offline', ready: false } : m)),
    };
    const forming: Pool = { ...FORMING, id: '11111111-2222-4333-8444-555555555555', name: 'attic-pool', model_id: 'llama-3.3-70b-instruct' };
    withPools([forming, degraded]);
    await render();

    const bad = await waitFor(() => poolCard(POOL.name));
    expect(within(bad).getByText('Degraded')).toHaveTextContent('Status: Degraded');
    expect(within(bad).getByText(POOL_STATUS_HINTS.degraded)).toBeInTheDocument();
    expect(within(bad).getByText(degraded.problem!)).toBeInTheDocument();
    expect(fact(member(bad, 'garage-server'), 'Status')).toHaveTextContent('Offline · Not ready');

    const starting = poolCard('attic-pool');
    expect(within(starting).getByText('Forming')).toHaveTextContent('Status: Forming');
    expect(within(starting).getByText(FORMING.problem!)).toBeInTheDocument();
    // A catalog model shows by its name.
    expect(fact(starting, 'Model')).toHaveTextContent('Llama 3.3 70B Instruct (llama-3.3-70b-instruct)');
    expect(fact(starting, 'Model size')).toHaveTextContent('Not known yet');
    const first = member(starting, 'living-room-pc');
    expect(within(first).getByText('Not assigned yet')).toBeInTheDocument();
    expect(fact(first, 'Status')).toHaveTextContent('Online · Not ready');
    expect(fact(first, 'Share of the layers')).toHaveTextContent('Not planned yet');
    // Newest first, as the API lists them.
    expect(
      within(pools())
        .getAllByRole('heading', { level: 3 })
        .map((h) => h.textContent),
    ).toEqual(['attic-pool', POOL.name]);
  });

  it('says what pools are for when there are none', async () => {
    withPools([]);
    await render();
    const section = await screen.findByRole('region', { name: 'Pools' });
    expect(await within(section).findByText('No pools yet')).toBeInTheDocument();
    expect(within(section).getByText(POOLS_TEXTS.emptyText)).toHaveTextContent('larger than any one of your machines');
  });

  it('creates a pool with POST /api/nodes/pools {name, model_id, node_ids}; it appears as forming', async () => {
    const { creates } = recordCalls();
    const first = await pairNode('office-tower');
    const second = await pairNode('garage-server');
    const user = userEvent.setup();
    await render();
    await waitFor(() => poolCard(POOL.name));
    const open = within(pools()).getByRole('button', { name: 'Create pool' });
    expect(open).toHaveAttribute('aria-expanded', 'false');
    await user.click(open);
    expect(open).toHaveAttribute('aria-expanded', 'true');
    const form = screen.getByRole('region', { name: 'Create a pool' });
    expect(within(form).getByRole('textbox', { name: 'Pool name' })).toHaveFocus();

    // Nothing chosen: every field says what it needs, and nothing is sent.
    await user.click(within(form).getByRole('button', { name: 'Create pool' }));
    expect(within(form).getByText('Enter a name')).toBeInTheDocument();
    expect(within(form).getByText('Choose a model', { selector: '.field-error' })).toBeInTheDocument();
    expect(within(form).getByText('Choose at least 2 nodes')).toBeInTheDocument();
    expect(within(form).getByRole('textbox', { name: 'Pool name' })).toHaveFocus();
    expect(creates).toEqual([]);

    // The whole catalog is offered, available or not.
    const model = within(form).getByRole('combobox', { name: 'Model' });
    expect(within(model).getAllByRole('option').slice(1)).toHaveLength(MODELS.length);
    expect(within(model).getByRole('option', { name: 'Llama 3 70B Instruct (70B)' })).toBeInTheDocument();
    // A node already in a pool cannot be chosen.
    const nodes = within(form).getByRole('group', { name: 'Nodes' });
    expect(within(nodes).getByRole('checkbox', { name: /living-room-pc/ })).toBeDisabled();
    expect(within(nodes).getByText(/in study-cluster/)).toBeInTheDocument();

    await user.type(within(form).getByRole('textbox', { name: 'Pool name' }), 'attic-pool');
    await user.selectOptions(model, 'llama-3.3-70b-instruct');
    // Only the nodes are missing: focus goes to the first node that can be chosen (the list is newest first).
    await user.click(within(form).getByRole('button', { name: 'Create pool' }));
    expect(within(nodes).getByRole('checkbox', { name: /garage-server/ })).toHaveFocus();
    expect(creates).toEqual([]);
    await user.click(within(nodes).getByRole('checkbox', { name: /office-tower/ }));
    await user.click(within(nodes).getByRole('checkbox', { name: /garage-server/ }));
    await user.click(within(form).getByRole('button', { name: 'Create pool' }));

    const created = await waitFor(() => poolCard('attic-pool'));
    // In the order of the list (newest first), which is the order of the layers after the coordinator's.
    expect(creates).toEqual([{ name: 'attic-pool', model_id: 'llama-3.3-70b-instruct', node_ids: [second, first] }]);
    expect(within(created).getByText('Forming')).toBeInTheDocument();
    expect(within(created).getAllByText('Not planned yet')).toHaveLength(2);
    expect(screen.queryByRole('region', { name: 'Create a pool' })).toBeNull();
    expect(open).toHaveFocus();
    expect(screen.getByText('attic-pool was created.')).toBeInTheDocument();
  });

  it('shows the API’s message when the pool is refused (409: a node already in a pool)', async () => {
    const message = 'office-tower is already in the pool study-cluster.';
    server.use(http.post('/api/nodes/pools', ({ response }) => response(409).json({ statusCode: 409, message, error: 'Conflict' })));
    await pairNode('office-tower');
    await pairNode('garage-server');
    const user = userEvent.setup();
    await render();
    await waitFor(() => poolCard(POOL.name));
    await user.click(within(pools()).getByRole('button', { name: 'Create pool' }));
    const form = screen.getByRole('region', { name: 'Create a pool' });
    await user.type(within(form).getByRole('textbox', { name: 'Pool name' }), 'attic-pool');
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Model' }), 'llama-3-70b-instruct');
    await user.click(within(form).getByRole('checkbox', { name: /office-tower/ }));
    await user.click(within(form).getByRole('checkbox', { name: /garage-server/ }));
    await user.click(within(form).getByRole('button', { name: 'Create pool' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(message);
    // The form stays, with what was entered, to correct it.
    expect(within(form).getByRole('textbox', { name: 'Pool name' })).toHaveValue('attic-pool');

    // Escape closes it; focus returns to the button that opened it.
    await user.click(within(form).getByRole('textbox', { name: 'Pool name' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('region', { name: 'Create a pool' })).toBeNull();
    expect(within(pools()).getByRole('button', { name: 'Create pool' })).toHaveFocus();
  });

  it('dissolves only after confirmation in a dialog, then DELETE /api/nodes/pools/{poolId} removes the pool', async () => {
    const { deletes } = recordCalls();
    const user = userEvent.setup();
    await render();
    const dissolve = await screen.findByRole('button', { name: `Dissolve ${POOL.name}` });
    await user.click(dissolve);
    let dialog = screen.getByRole('alertdialog', { name: 'Dissolve this pool?' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveTextContent(POOLS_TEXTS.dissolveText);
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole('button', { name: 'Dissolve pool' })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(dissolve).toHaveFocus();
    expect(deletes).toEqual([]);

    await user.click(dissolve);
    dialog = screen.getByRole('alertdialog', { name: 'Dissolve this pool?' });
    await user.click(within(dialog).getByRole('button', { name: 'Dissolve pool' }));
    expect(await within(pools()).findByText('No pools yet')).toBeInTheDocument();
    expect(deletes).toEqual([POOL.id]);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByRole('heading', { level: 2, name: 'Pools' })).toHaveFocus();
    expect(screen.getByText(`${POOL.name} was dissolved.`)).toBeInTheDocument();
  });

  it('shows the API’s message in the dialog when dissolving is refused', async () => {
    server.use(
      http.delete('/api/nodes/pools/{poolId}', ({ response }) =>
        response(404).json({ statusCode: 404, message: 'Pool not found', error: 'Not Found' }),
      ),
    );
    const user = userEvent.setup();
    await render();
    await user.click(await screen.findByRole('button', { name: `Dissolve ${POOL.name}` }));
    const dialog = screen.getByRole('alertdialog', { name: 'Dissolve this pool?' });
    await user.click(within(dialog).getByRole('button', { name: 'Dissolve pool' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Pool not found');
  });

  it('is not shown while there are no nodes', async () => {
    server.use(http.get('/api/nodes', ({ response }) => response(200).json({ nodes: [] })));
    await render();
    expect(await screen.findByText('No nodes yet')).toBeInTheDocument();
    await act(async () => undefined);
    expect(screen.queryByRole('region', { name: 'Pools' })).toBeNull();
  });
});
