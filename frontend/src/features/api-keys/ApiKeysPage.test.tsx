import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import { focusManager } from '@tanstack/react-query';
import userEvent from '@testing-library/user-event';
import { formatDateTime, formatGlob } from '../../components/format';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { resetApiKeysMock } from '../../mocks/handlers/api-keys';
import { createQueryClient } from '../../router';
import { renderWithProviders } from '../../test/render';
import { ApiKeysPage, EXAMPLE_MAX_TOKENS, EXAMPLE_MODEL } from './ApiKeysPage';
import { API_KEYS_TEXTS as T } from './texts';

const KEY = example('/api/api-keys', 'get', 200).api_keys[0]!;
const render = () => renderWithProviders(<ApiKeysPage />, { path: '/app/api-keys' });
const row = (name: string) => screen.getByRole('rowheader', { name }).closest('tr') as HTMLElement;

beforeEach(() => resetApiKeysMock());

describe('ApiKeysPage', () => {
  it('lists each key with its prefix, tokens, GLOB spent and daily limit, never the secret', async () => {
    await render();
    const r = await waitFor(() => row(KEY.name));
    expect(within(r).getByText(`${KEY.prefix}…`)).toBeInTheDocument();
    expect(within(r).getByTestId('api-key-tokens')).toHaveTextContent(KEY.tokens.toLocaleString('en-US'));
    expect(within(r).getByTestId('api-key-spent')).toHaveTextContent(formatGlob(KEY.spent));
    expect(r).toHaveTextContent(`${formatGlob(KEY.spent_today)} / ${formatGlob(KEY.daily_limit)}`);
  });

  it('reads the keys again when the tab comes back into view, so "Last used" moves after a key is used elsewhere', async () => {
    // The app's own query defaults (no refetch on focus, 30 s fresh), which this list overrides.
    await renderWithProviders(<ApiKeysPage />, { path: '/app/api-keys', queryClient: createQueryClient() });
    await waitFor(() => row(KEY.name));
    const usedAt = '2026-11-28T09:41:00.000Z';
    server.use(
      http.get('/api/api-keys', ({ response }) =>
        response(200).json({ api_keys: example('/api/api-keys', 'get', 200).api_keys.map((k) => ({ ...k, last_used_at: usedAt })) }),
      ),
    );
    act(() => {
      focusManager.setFocused(false);
      focusManager.setFocused(true);
    });
    await waitFor(() => expect(row(KEY.name)).toHaveTextContent(formatDateTime(usedAt)));
    act(() => focusManager.setFocused(undefined));
  });

  it('creates a key, shows it once with the curl example, and revokes a key after confirmation', async () => {
    const user = userEvent.setup();
    await render();
    await waitFor(() => row(KEY.name));
    await user.type(screen.getByLabelText(T.nameLabel), 'ci job');
    await user.click(screen.getByRole('button', { name: T.createButton }));
    const secret = await screen.findByTestId('api-key-secret');
    expect(secret.textContent).toMatch(/^glb_sk_/);
    expect(screen.getByTestId('api-snippet')).toHaveTextContent(secret.textContent!);
    // The same call in Python, with this site's /v1 as the base URL, copied with its own button.
    await user.click(screen.getByRole('button', { name: T.languages.python }));
    expect(screen.getByRole('button', { name: T.languages.python })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('api-snippet')).toHaveTextContent(`base_url="${window.location.origin}/v1", api_key="${secret.textContent!}"`);
    const written = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: T.copySnippet }));
    expect(written).toHaveBeenCalledWith(screen.getByTestId('api-snippet').textContent);
    expect(screen.getByText(T.copied)).toBeInTheDocument();
    await waitFor(() => row('ci job'));
    await user.click(screen.getByRole('button', { name: T.done }));
    expect(screen.queryByTestId('api-key-secret')).not.toBeInTheDocument();

    await user.click(within(row(KEY.name)).getByRole('button', { name: T.revoke }));
    const dialog = screen.getByRole('alertdialog', { name: T.revokeTitle });
    await user.click(within(dialog).getByRole('button', { name: T.revoke }));
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: KEY.name })).not.toBeInTheDocument());
    expect(row('ci job')).toBeInTheDocument();
  });

  it('shows the tools example in each language: one function offered with tool_choice auto, its result sent back as a tool turn', async () => {
    const user = userEvent.setup();
    await render();
    await waitFor(() => row(KEY.name));
    const region = screen.getByRole('region', { name: T.toolsTitle });
    expect(screen.getByRole('heading', { level: 3, name: T.toolsTitle })).toBeInTheDocument();
    const tools = within(region).getByTestId('api-tools-snippet');
    // curl first, like the chat example: the same /v1 and key, the answer's arguments read with jq.
    expect(tools).toHaveTextContent(`${window.location.origin}/v1/chat/completions`);
    expect(tools).toHaveTextContent(`Bearer ${KEY.prefix}…`);
    expect(tools).toHaveTextContent('"name": "get_weather"');
    expect(tools).toHaveTextContent('\\"tool_choice\\": \\"auto\\"');
    expect(tools).toHaveTextContent('.tool_calls[0].function.arguments');
    expect(tools).toHaveTextContent('{role: "tool", tool_call_id: .tool_calls[0].id');

    await user.click(screen.getByRole('button', { name: T.languages.javascript }));
    expect(tools).toHaveTextContent(`baseURL: '${window.location.origin}/v1', apiKey: '${KEY.prefix}…'`);
    expect(tools).toHaveTextContent("name: 'get_weather'");
    expect(tools).toHaveTextContent("tool_choice: 'auto'");
    expect(tools).toHaveTextContent('const call = message.tool_calls[0];');
    expect(tools).toHaveTextContent('JSON.parse(call.function.arguments)');
    expect(tools).toHaveTextContent("{ role: 'tool', tool_call_id: call.id,");

    await user.click(screen.getByRole('button', { name: T.languages.python }));
    expect(tools).toHaveTextContent(`base_url="${window.location.origin}/v1", api_key="${KEY.prefix}…"`);
    expect(tools).toHaveTextContent('"name": "get_weather"');
    expect(tools).toHaveTextContent('tool_choice="auto"');
    expect(tools).toHaveTextContent('json.loads(call.function.arguments)');
    expect(tools).toHaveTextContent('{"role": "tool", "tool_call_id": call.id,');

    // Its own copy button, beside the chat example's.
    const written = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: T.copyToolsSnippet }));
    expect(written).toHaveBeenCalledWith(tools.textContent);
    expect(screen.getByRole('button', { name: T.copySnippet })).toBeInTheDocument();
  });

  it('every example caps its reply (max_tokens), and the panel says the most a call of it can cost', async () => {
    const user = userEvent.setup();
    // The catalog as a real platform lists it: the examples' model among the others.
    const catalog = example('/api/inference/models', 'get', 200);
    const model = { ...catalog.models[2]!, id: EXAMPLE_MODEL, display_name: 'Glob Tiny Chat', price_per_token: 0.125 };
    server.use(http.get('/api/inference/models', ({ response }) => response(200).json({ models: [...catalog.models, model] })));
    await render();
    await waitFor(() => row(KEY.name));
    const note = await screen.findByTestId('api-cost-note');
    expect(note).toHaveTextContent(
      T.costNote(EXAMPLE_MAX_TOKENS, model.display_name, formatGlob(model.price_per_token), formatGlob(EXAMPLE_MAX_TOKENS * model.price_per_token)),
    );
    const calls = { curl: /"max_tokens\\?": 64/g, javascript: /max_tokens: 64/g, python: /max_tokens=64/g } as const;
    for (const [language, cap] of Object.entries(calls)) {
      await user.click(screen.getByRole('button', { name: T.languages[language as keyof typeof calls] }));
      // One cap per call: the chat example makes one, the tools example two.
      expect(screen.getByTestId('api-snippet').textContent!.match(cap)).toHaveLength(1);
      expect(screen.getByTestId('api-tools-snippet').textContent!.match(cap)).toHaveLength(2);
    }
  });
});
