import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { tokenStore } from '../../api/tokens';
import { example } from '../../mocks/examples';
import { server } from '../../mocks/node';
import { testQueryClient, visitRoute } from '../../test/render';
import { chatCache } from './cache';
import { REPLY_TEXT, SETTINGS_TEXT } from './reply-texts';
import { chatTitle, LAST_CONVERSATION_KEY, TEXT, usageLine } from './texts';
import { USER, controlledStream, renderAssistant, renderAssistantAlone, signIn, timedStream } from './testing';

const API = 'http://localhost/api';
const CREATED = example('/api/chat/conversations', 'post', 201).conversation;
const STORED = example('/api/chat/conversations/{id}', 'get', 200).conversation;

beforeEach(async () => {
  localStorage.clear();
  await chatCache.clear();
  signIn();
});

afterEach(() => {
  localStorage.clear();
});

async function ready() {
  const user = userEvent.setup();
  const utils = await renderAssistant();
  await screen.findByRole('heading', { level: 1, name: 'AI Assistant' });
  return { user, ...utils };
}

const field = () => screen.getByRole('textbox', { name: 'Message' });
const log = () => screen.getByRole('log', { name: 'Messages' });

/** Records every stream/start body; answers with what `answer` returns. */
function onStart(answer: (body: Record<string, unknown>) => Response | Promise<Response>) {
  const bodies: Array<Record<string, unknown>> = [];
  server.use(
    plain.post(`${API}/inference/stream/start`, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      bodies.push(body);
      return answer(body);
    }),
  );
  return bodies;
}

describe('assistant page: header and models', () => {
  it("shows 'Loading AI Assistant...' first, then the header, 'Real AI' and the cost line", async () => {
    server.use(
      plain.get(`${API}/inference/models`, async () => {
        await new Promise((r) => setTimeout(r, 50));
        return HttpResponse.json(example('/api/inference/models', 'get', 200));
      }),
    );
    await renderAssistant();
    expect(await screen.findByText(TEXT.loading)).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'AI Assistant' })).toBeInTheDocument();
    expect(screen.getByText('Real AI')).toBeInTheDocument();
    expect(screen.getByText('Tokens used: 0 • Cost: $0.0000')).toBeInTheDocument();
    expect(screen.queryByText(TEXT.loading)).toBeNull();
  });

  it("formats the cost as tokens × the model's GLOB price × 0.008 USD, 4 decimals (0.001 USD per token by default)", () => {
    expect(usageLine(23, 0.125)).toBe('Tokens used: 23 • Cost: $0.0230');
    expect(usageLine(1234, 0.125)).toBe('Tokens used: 1234 • Cost: $1.2340');
    expect(usageLine(5, 0.125)).toBe('Tokens used: 5 • Cost: $0.0050');
    expect(usageLine(1234, 0.25)).toBe('Tokens used: 1234 • Cost: $2.4680');
  });

  it("says 'Login required for AI services' when signed out", async () => {
    tokenStore.clear();
    await renderAssistantAlone();
    expect(await screen.findByText(TEXT.loginRequired)).toBeInTheDocument();
    expect(screen.queryByText(/Tokens used/)).toBeNull();
  });

  it('lists the models with their details, disables unavailable ones and picks the default model', async () => {
    await ready();
    const select = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    const options = within(select).getAllByRole('option') as HTMLOptionElement[];
    expect(options.map((o) => o.value)).toEqual(['llama-3.3-70b-instruct', 'llama-3-70b-instruct', 'llama-3.2-1b-instruct', 'llama-3-8b-instruct']);
    expect(options[0]).toHaveTextContent(
      "Llama 3.3 70B Instruct · 70B · 8,192 context · available — Meta's instruction-tuned 70B model for chat, coding and analysis.",
    );
    expect(options[1]).toHaveTextContent('Llama 3 70B Instruct · 70B · 8,192 context · unavailable — AI Language Model');
    expect(options[1]).toBeDisabled();
    expect(options[0]).not.toBeDisabled();
    expect(select.value).toBe('llama-3.3-70b-instruct');
    expect(screen.getByText('Using Llama 3.3 70B Instruct')).toBeInTheDocument();
    expect(screen.getByText('Each message uses tokens from your balance')).toBeInTheDocument();
    expect(screen.queryByText(TEXT.modelsFailed)).toBeNull();

    const user = userEvent.setup();
    await user.selectOptions(select, 'llama-3-8b-instruct');
    expect(select.value).toBe('llama-3-8b-instruct');
    expect(screen.getByText('Using Llama 3 8B Instruct')).toBeInTheDocument();
  });

  it('offers only chat models: an embedding model of the catalog is never an option nor the default', async () => {
    const list = example('/api/inference/models', 'get', 200);
    const embedding = list.models.find((m) => m.kind === 'embedding')!;
    expect(embedding.status).toBe('available');
    // Every chat model unavailable: the embedding model, the one available, is still not picked.
    for (const m of list.models) if (m.kind === 'chat') m.status = 'unavailable';
    server.use(plain.get(`${API}/inference/models`, () => HttpResponse.json(list)));
    await ready();
    const select = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    const values = within(select)
      .getAllByRole('option')
      .map((o) => (o as HTMLOptionElement).value);
    expect(values).toEqual(['', ...list.models.filter((m) => m.kind === 'chat').map((m) => m.id)]);
    expect(select.value).toBe('');
    expect(within(select).queryByRole('option', { name: new RegExp(embedding.name) })).toBeNull();
    expect(field()).toBeDisabled();
    expect(screen.queryByText(`Using ${embedding.name}`)).toBeNull();
  });

  it("says how busy an available model is: '3 waiting' beside its status, nothing while none waits", async () => {
    const { user } = await ready();
    const select = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    const options = within(select).getAllByRole('option') as HTMLOptionElement[];
    // The spec's example: 0, 0 (unavailable), 3 and 1 replies waiting.
    expect(options[0]!.textContent).not.toMatch(/waiting/);
    expect(options[1]!.textContent).not.toMatch(/waiting/);
    expect(options[2]).toHaveTextContent(
      'Llama 3.2 1B Instruct · 1B · 8,192 context · available · 3 waiting — A small, fast model for short answers.',
    );
    expect(options[3]).toHaveTextContent('Llama 3 8B Instruct · 8B · 8,192 context · available · 1 waiting — AI Language Model');
    const details = () => document.getElementById('assistant-model-details')!;
    expect(details().textContent).toMatch(/tokens context · available$/);
    await user.selectOptions(select, 'llama-3.2-1b-instruct');
    expect(details()).toHaveTextContent('A small, fast model for short answers. · 1B parameters · 8,192 tokens context · available · 3 waiting');
  });

  it('picks the first available model when the default one is unavailable, with 001 defaults for missing fields', async () => {
    const list = example('/api/inference/models', 'get', 200);
    list.models[0]!.status = 'unavailable';
    list.models[2]!.status = 'unavailable';
    (list.models[3] as { description?: string }).description = '';
    server.use(plain.get(`${API}/inference/models`, () => HttpResponse.json(list)));
    await ready();
    const select = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    expect(select.value).toBe('llama-3-8b-instruct');
    expect(within(select).getByRole('option', { name: /Llama 3 8B Instruct/ })).toHaveTextContent('— AI Language Model');
  });

  it("falls back to the four default models with 'Failed to load models. Using default models.'", async () => {
    server.use(plain.get(`${API}/inference/models`, () => HttpResponse.json({ message: 'down' }, { status: 500 })));
    await ready();
    expect(screen.getByText(TEXT.modelsFailed)).toBeInTheDocument();
    const select = screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement;
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => (o as HTMLOptionElement).value),
    ).toEqual(['llama-3.3-70b-instruct', 'llama-3-70b-instruct', 'llama-3.2-1b-instruct', 'llama-3-8b-instruct']);
    expect(select.value).toBe('llama-3.3-70b-instruct');
    expect(within(select).getAllByRole('option')[0]).toHaveTextContent('AI Language Model');
  });

  it("without any available model the input is disabled and asks 'Select a model first...'", async () => {
    const list = example('/api/inference/models', 'get', 200);
    for (const m of list.models) m.status = 'unavailable';
    server.use(plain.get(`${API}/inference/models`, () => HttpResponse.json(list)));
    await ready();
    expect(field()).toBeDisabled();
    expect(field()).toHaveAttribute('placeholder', 'Select a model first...');
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
    expect(screen.queryByText(/^Using /)).toBeNull();
  });
});

describe('assistant page: chatting', () => {
  it('greets a new conversation; Clear conversation shows the empty state', async () => {
    const { user } = await ready();
    expect(within(log()).getByText(TEXT.greeting)).toBeInTheDocument();
    expect(screen.queryByText(TEXT.emptyTitle)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Clear conversation' }));
    expect(screen.getByRole('heading', { name: 'Start a conversation' })).toBeInTheDocument();
    expect(screen.getByText(TEXT.emptyBody)).toBeInTheDocument();
    expect(screen.queryByText(TEXT.greeting)).toBeNull();
  });

  it('creates the conversation on the first message, then streams the reply token by token', async () => {
    const creates: unknown[] = [];
    let saves = 0;
    server.use(
      plain.post(`${API}/chat/conversations`, async ({ request }) => {
        creates.push(await request.json());
        return HttpResponse.json(example('/api/chat/conversations', 'post', 201), { status: 201 });
      }),
      plain.post(`${API}/chat/conversations/:id/messages`, () => {
        saves += 1;
        return HttpResponse.json(example('/api/chat/conversations/{id}/messages', 'post', 201), { status: 201 });
      }),
    );
    const stream = controlledStream();
    const bodies = onStart(() => stream.response());
    const queryClient = testQueryClient();
    const invalidate = jest.spyOn(queryClient, 'invalidateQueries');
    const user = userEvent.setup();
    await renderAssistant(queryClient);
    await screen.findByRole('heading', { level: 1, name: 'AI Assistant' });

    await user.type(field(), 'Explain list comprehensions{Enter}');
    expect(field()).toHaveValue('');
    expect(await within(log()).findByText('Generating...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Stop generation' })).toBeInTheDocument();
    expect(field()).toBeDisabled();
    expect(screen.getByRole('combobox', { name: 'Model' })).toBeDisabled();
    await waitFor(() => expect(bodies).toHaveLength(1));

    expect(creates).toHaveLength(1);
    expect(creates[0]).toEqual({ title: chatTitle(), model_id: 'llama-3.3-70b-instruct' });
    expect(bodies[0]).toEqual({
      streamId: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      modelId: 'llama-3.3-70b-instruct',
      prompt: 'Explain list comprehensions',
      conversation_id: CREATED.id,
    });

    stream.token('List');
    expect(await within(log()).findByText('List')).toBeInTheDocument();
    stream.token(' comprehensions build a list');
    expect(await within(log()).findByText('List comprehensions build a list')).toBeInTheDocument();
    expect(within(log()).getByText('Generating...')).toBeInTheDocument();
    stream.done();

    await waitFor(() => expect(within(log()).queryByText('Generating...')).toBeNull());
    const reply = within(log()).getByText('List comprehensions build a list').closest('.assistant-msg') as HTMLElement;
    expect(within(reply).getByText('9 tokens')).toBeInTheDocument();
    expect(within(reply).getByText('Llama 3.3 70B Instruct')).toBeInTheDocument();
    expect(within(reply).getByText('Sent')).toBeInTheDocument();
    // The default model, 70B: 0.25 GLOB per token × 0.008 USD.
    expect(screen.getByText('Tokens used: 23 • Cost: $0.0460')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeInTheDocument();
    expect(field()).not.toBeDisabled();
    const mine = within(log()).getByText('Explain list comprehensions').closest('.assistant-msg') as HTMLElement;
    expect(within(mine).getByText('You')).toBeInTheDocument();
    expect(mine).toHaveAttribute('data-status', 'sent');

    // The server saved both messages: the client saved none.
    expect(saves).toBe(0);
    await waitFor(() => {
      expect(invalidate).toHaveBeenCalledWith({ queryKey: ['wallet'] });
      expect(invalidate).toHaveBeenCalledWith({ queryKey: ['accounts', 'me'] });
    });
    expect(localStorage.getItem(LAST_CONVERSATION_KEY)).toBe(CREATED.id);
  });

  it('shows tokens as a timed event stream delivers them (the spec format: id + data, blank line)', async () => {
    onStart(() =>
      timedStream(
        [
          { type: 'token', text: 'One' },
          { type: 'token', text: ' two' },
          { type: 'token', text: ' three' },
          { type: 'done', success: true, usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 }, stop_reason: 'stop' },
        ],
        120,
      ),
    );
    const { user } = await ready();
    await user.type(field(), 'Count{Enter}');
    const seen: string[] = [];
    await waitFor(
      () => {
        const text = log().querySelectorAll('.assistant-msg-content');
        const last = text[text.length - 1]?.textContent ?? '';
        if (seen.at(-1) !== last) seen.push(last);
        expect(last).toBe('One two three');
      },
      { interval: 10 },
    );
    // The reply grew in steps rather than arriving whole.
    expect(seen).toEqual(expect.arrayContaining(['One', 'One two', 'One two three']));
    // The default model, 70B: 0.25 GLOB per token × 0.008 USD.
    await waitFor(() => expect(screen.getByText('Tokens used: 7 • Cost: $0.0140')).toBeInTheDocument());
  });

  it('Stop calls the stop endpoint and marks the reply sent and Stopped, ending where the server’s saved reply ends', async () => {
    const stream = controlledStream();
    const bodies = onStart(() => stream.response());
    const stops: string[] = [];
    server.use(
      plain.post(`${API}/inference/stream/:id/stop`, ({ params }) => {
        stops.push(String(params.id));
        return HttpResponse.json({ stopped: true, stream_id: String(params.id) });
      }),
    );
    const { user } = await ready();
    await user.type(field(), 'Tell me a long story{Enter}');
    await waitFor(() => expect(bodies).toHaveLength(1));
    stream.token('Once upon');
    expect(await within(log()).findByText('Once upon')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Stop generation' }));
    await waitFor(() => expect(stops).toEqual([bodies[0]!.streamId]));
    // Generated before the stop reached the worker: saved and charged, so shown too. Then the worker ends the stream
    // with `done` (stop_reason abort) once it stopped.
    stream.token(' a time');
    stream.done({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }, 'abort');
    expect(within(log()).queryByText('Generating...')).toBeNull();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeInTheDocument();
    expect(field()).not.toBeDisabled();
    const reply = within(log()).getByText('Once upon').closest('.assistant-msg') as HTMLElement;
    expect(reply).toHaveAttribute('data-status', 'sent');
    expect(within(reply).getByText(REPLY_TEXT.stopped)).toBeInTheDocument();
    await waitFor(() => expect(within(reply).getByText('1 token')).toBeInTheDocument());
    expect(within(reply).getByText('Once upon a time')).toBeInTheDocument();
  });

  it("a 402 shows the 'Insufficient GLB Tokens' notice with the Token Wallet link", async () => {
    onStart(() => HttpResponse.json(example('/api/inference/stream/start', 'post', 402), { status: 402 }));
    const { user } = await ready();
    await user.type(field(), 'Hello{Enter}');
    expect(await within(log()).findByText('Insufficient GLB Tokens')).toBeInTheDocument();
    const notice = within(log()).getByText('Insufficient GLB Tokens').closest('.assistant-msg') as HTMLElement;
    expect(within(notice).getByRole('link', { name: 'Token Wallet' })).toHaveAttribute('href', '/app/wallet');
    expect(notice).toHaveTextContent(/check your balance/);
    expect(notice).toHaveTextContent(/share resources/);
    expect(notice).toHaveTextContent('Your conversation is saved.');
    expect(within(log()).queryByText(TEXT.failure)).toBeNull();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeInTheDocument();
  });

  it('an error event about insufficient tokens mid-stream is the same notice', async () => {
    const stream = controlledStream();
    onStart(() => stream.response());
    const { user } = await ready();
    await user.type(field(), 'Hello{Enter}');
    await within(log()).findByText('Generating...');
    stream.error('INSUFFICIENT_TOKENS', 'Payment required: insufficient tokens');
    expect(await within(log()).findByText('Insufficient GLB Tokens')).toBeInTheDocument();
  });

  it("a 401 answers 'Please login to use AI services…'", async () => {
    // No refresh token: the client cannot renew the session, so the 401 reaches the assistant.
    tokenStore.set({ access_token: 'access-1', refresh_token: null });
    onStart(() => HttpResponse.json(example('/api/inference/stream/start', 'post', 401), { status: 401 }));
    const { user } = await ready();
    await user.type(field(), 'Hello{Enter}');
    expect(await within(log()).findByText(TEXT.authRequired)).toBeInTheDocument();
  });

  it('any other failure apologises, marks the message failed, and Retry sends it again', async () => {
    let calls = 0;
    const bodies = onStart(() => {
      calls += 1;
      return calls === 1
        ? HttpResponse.json({ statusCode: 503, message: 'Model is unavailable', error: 'Service Unavailable' }, { status: 503 })
        : timedStream([
            { type: 'token', text: 'Second time lucky' },
            { type: 'done', success: true, usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }, stop_reason: 'stop' },
          ]);
    });
    const { user } = await ready();
    await user.type(field(), 'Hello there{Enter}');
    expect(await within(log()).findByText(TEXT.failure)).toBeInTheDocument();
    const mine = within(log()).getByText('Hello there').closest('.assistant-msg') as HTMLElement;
    expect(mine).toHaveAttribute('data-status', 'error');
    await user.click(within(mine).getByRole('button', { name: 'Retry' }));
    expect(await within(log()).findByText('Second time lucky')).toBeInTheDocument();
    expect(within(log()).queryByText(TEXT.failure)).toBeNull();
    await waitFor(() => expect(mine).toHaveAttribute('data-status', 'sent'));
    expect(within(mine).queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.prompt).toBe('Hello there');
    expect(bodies[1]!.streamId).not.toBe(bodies[0]!.streamId);
    // Only one conversation for both tries.
    expect(bodies[1]!.conversation_id).toBe(bodies[0]!.conversation_id);
  });

  it("shows 'Failed to create conversation' when the first message cannot create one", async () => {
    server.use(plain.post(`${API}/chat/conversations`, () => HttpResponse.json({ message: 'boom' }, { status: 500 })));
    const bodies = onStart(() => timedStream([]));
    const { user } = await ready();
    await user.type(field(), 'Hello{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to create conversation');
    const mine = within(log()).getByText('Hello').closest('.assistant-msg') as HTMLElement;
    expect(mine).toHaveAttribute('data-status', 'error');
    expect(within(mine).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(bodies).toHaveLength(0);
  });

  it('reconnects with Last-Event-ID when the connection drops mid-stream', async () => {
    onStart(() =>
      timedStream([
        { type: 'token', text: 'Half' },
        { type: 'token', text: ' way' },
      ]),
    );
    const resumes: Array<string | null> = [];
    server.use(
      plain.get(`${API}/inference/stream/:id`, ({ request }) => {
        resumes.push(request.headers.get('Last-Event-ID'));
        return timedStream(
          [
            { type: 'token', text: ' there' },
            { type: 'done', success: true, usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 }, stop_reason: 'stop' },
          ],
          20,
          3,
        );
      }),
    );
    const { user } = await ready();
    await user.type(field(), 'Go{Enter}');
    expect(await within(log()).findByText('Half way there')).toBeInTheDocument();
    await waitFor(() => expect(within(log()).queryByText('Generating...')).toBeNull());
    expect(resumes).toEqual(['2']);
    expect(within(log()).queryByText(TEXT.failure)).toBeNull();
  });
});

describe('assistant page: input', () => {
  it('Enter sends, Shift+Enter adds a newline, blank messages are not sent', async () => {
    const bodies = onStart(() =>
      timedStream([{ type: 'done', success: true, usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 }, stop_reason: 'stop' }]),
    );
    const { user } = await ready();
    await user.type(field(), '   {Enter}');
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    await user.type(field(), 'line one{Shift>}{Enter}{/Shift}line two');
    expect(field()).toHaveValue('   line one\nline two');
    expect(bodies).toHaveLength(0);
    await user.keyboard('{Enter}');
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]!.prompt).toBe('   line one\nline two');
  });

  it('grows from 48 px up to 120 px', async () => {
    await ready();
    const area = field() as HTMLTextAreaElement;
    expect(area.style.height).toBe('48px');
    let height = 80;
    Object.defineProperty(area, 'scrollHeight', { configurable: true, get: () => height });
    const user = userEvent.setup();
    await user.type(area, 'a');
    expect(area.style.height).toBe('80px');
    height = 400;
    await user.type(area, 'b');
    expect(area.style.height).toBe('120px');
    height = 10;
    await user.type(area, 'c');
    expect(area.style.height).toBe('48px');
  });
});

describe('assistant page: conversations', () => {
  it('remembers the last conversation and reopens it, selecting its model', async () => {
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    const conversation = { ...STORED, model_id: 'llama-3-8b-instruct' };
    server.use(plain.get(`${API}/chat/conversations/:id`, () => HttpResponse.json({ conversation })));
    await ready();
    expect(within(log()).getByText(STORED.messages[0]!.content)).toBeInTheDocument();
    expect(within(log()).getByText(STORED.messages[1]!.content)).toBeInTheDocument();
    expect(within(log()).queryByText(TEXT.greeting)).toBeNull();
    expect(screen.getByText('Tokens used: 23 • Cost: $0.0230')).toBeInTheDocument();
    await waitFor(() => expect((screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement).value).toBe('llama-3-8b-instruct'));

    // New conversation forgets it.
    await userEvent.setup().click(screen.getByRole('button', { name: 'New conversation' }));
    expect(localStorage.getItem(LAST_CONVERSATION_KEY)).toBeNull();
    expect(within(log()).getByText(TEXT.greeting)).toBeInTheDocument();
    expect(screen.getByText('Tokens used: 0 • Cost: $0.0000')).toBeInTheDocument();
  });

  it('forgets a remembered conversation that no longer exists, without an error', async () => {
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    server.use(plain.get(`${API}/chat/conversations/:id`, () => HttpResponse.json({ message: 'Conversation not found' }, { status: 404 })));
    await ready();
    expect(within(log()).getByText(TEXT.greeting)).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(localStorage.getItem(LAST_CONVERSATION_KEY)).toBeNull();
  });

  it("shows the cached copy with 'Failed to load conversation' when the server fails", async () => {
    // A first visit loads the conversation (and caches it) ...
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    const first = await renderAssistant();
    await screen.findByRole('heading', { level: 1, name: 'AI Assistant' });
    expect(within(log()).getByText(STORED.messages[1]!.content)).toBeInTheDocument();
    await waitFor(async () => expect(await chatCache.getConversation(USER.id, STORED.id)).not.toBeNull());
    first.unmount();

    // ... the next one finds the server down.
    server.use(plain.get(`${API}/chat/conversations/:id`, () => HttpResponse.json({ message: 'down' }, { status: 500 })));
    await ready();
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load conversation');
    expect(within(log()).getByText(STORED.messages[0]!.content)).toBeInTheDocument();
    expect(within(log()).getByText(STORED.messages[1]!.content)).toBeInTheDocument();
  });

  it("shows 'Failed to load conversation' when selecting one fails and nothing is cached", async () => {
    server.use(plain.get(`${API}/chat/conversations/:id`, () => HttpResponse.json({ message: 'down' }, { status: 500 })));
    const { user } = await ready();
    await user.click(await screen.findByRole('button', { name: /^Python list comprehensions/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load conversation');
    expect(within(log()).queryByText(STORED.messages[0]!.content)).toBeNull();
    expect(within(log()).getByText(TEXT.emptyTitle)).toBeInTheDocument();
  });

  it('selecting a conversation loads it and selects its model', async () => {
    const requested: string[] = [];
    server.use(
      plain.get(`${API}/chat/conversations/:id`, ({ params }) => {
        requested.push(String(params.id));
        return HttpResponse.json({
          conversation: {
            ...STORED,
            id: String(params.id),
            conversation_id: String(params.id),
            title: 'Trip plan for Lisbon',
            model_id: 'llama-3-8b-instruct',
          },
        });
      }),
    );
    const { user } = await ready();
    await user.click(await screen.findByRole('button', { name: /^Trip plan for Lisbon/ }));
    await waitFor(() => expect(new Set(requested)).toEqual(new Set(['6d8e0a2c-4b6f-4e1a-9c3d-5f7b9d1e3a50'])));
    expect(await within(log()).findByText(STORED.messages[1]!.content)).toBeInTheDocument();
    expect((screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement).value).toBe('llama-3-8b-instruct');
    expect(localStorage.getItem(LAST_CONVERSATION_KEY)).toBe('6d8e0a2c-4b6f-4e1a-9c3d-5f7b9d1e3a50');
    expect(screen.getByRole('button', { name: /^Trip plan for Lisbon/ })).toHaveAttribute('aria-current', 'true');
  });

  /** The stored conversation while its reply is generated (only the user's message saved), then with the reply. */
  function generatingConversation(streamId: string) {
    const [question, saved] = STORED.messages;
    const live = {
      ...STORED,
      messages: [question!],
      active_stream: { stream_id: streamId, model_id: 'llama-3-8b-instruct', started_at: '2026-11-21T10:15:01.000Z' },
    };
    const done = { ...STORED, active_stream: null };
    let ended = false;
    const gets: number[] = [];
    server.use(
      plain.get(`${API}/chat/conversations/:id`, () => {
        gets.push(Date.now());
        return HttpResponse.json({ conversation: ended ? done : live });
      }),
    );
    return { saved: saved!, gets, end: () => (ended = true) };
  }

  it('a reopened conversation whose reply is still generated shows it streaming from its first token, then the saved reply once', async () => {
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    const conv = generatingConversation('msg_1732184100000_k3j9x');
    const stream = controlledStream();
    const reads: Array<{ id: string; lastEventId: string | null }> = [];
    server.use(
      plain.get(`${API}/inference/stream/:id`, ({ params, request }) => {
        reads.push({ id: String(params.id), lastEventId: request.headers.get('Last-Event-ID') });
        return stream.response();
      }),
    );
    const queryClient = testQueryClient();
    const invalidate = jest.spyOn(queryClient, 'invalidateQueries');
    await renderAssistant(queryClient);
    await screen.findByRole('heading', { level: 1, name: 'AI Assistant' });

    expect(await within(log()).findByText('Generating...')).toBeInTheDocument();
    expect(within(log()).getByText(STORED.messages[0]!.content)).toBeInTheDocument();
    await waitFor(() => expect(reads).toEqual([{ id: 'msg_1732184100000_k3j9x', lastEventId: null }]));
    expect(screen.getByRole('button', { name: 'Stop generation' })).toBeInTheDocument();
    expect(field()).toBeDisabled();

    stream.token('List comprehensions build');
    expect(await within(log()).findByText('List comprehensions build')).toBeInTheDocument();
    stream.token(' a list from an iterable in one expression.');
    expect(await within(log()).findByText(conv.saved.content)).toBeInTheDocument();
    expect(within(log()).getByText('Generating...')).toBeInTheDocument();

    // The worker saves the reply, then ends the stream: the conversation is loaded again.
    conv.end();
    stream.done();
    await waitFor(() => expect(conv.gets).toHaveLength(2));
    await waitFor(() => expect(within(log()).queryByText('Generating...')).toBeNull());
    expect(within(log()).getAllByText(conv.saved.content)).toHaveLength(1);
    expect(log().querySelectorAll('.assistant-msg.is-assistant')).toHaveLength(1);
    // The default model, 70B: 0.25 GLOB per token × 0.008 USD.
    expect(screen.getByText('Tokens used: 23 • Cost: $0.0460')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeInTheDocument();
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['wallet'] });
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['accounts', 'me'] });
  });

  it('Stop generation stops a reply the reopened conversation is following', async () => {
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    const conv = generatingConversation('msg_1732184100000_other');
    const stream = controlledStream();
    const stops: string[] = [];
    server.use(
      plain.get(`${API}/inference/stream/:id`, () => stream.response()),
      plain.post(`${API}/inference/stream/:id/stop`, ({ params }) => {
        stops.push(String(params.id));
        conv.end();
        setTimeout(() => stream.done({ prompt_tokens: 14, completion_tokens: 9, total_tokens: 23 }, 'abort'), 20);
        return HttpResponse.json({ stopped: true, stream_id: String(params.id) });
      }),
    );
    const { user } = await ready();
    stream.token('List comprehensions');
    expect(await within(log()).findByText('List comprehensions')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Stop generation' }));
    await waitFor(() => expect(stops).toEqual(['msg_1732184100000_other']));
    expect(within(log()).queryByText('Generating...')).toBeNull();
    // The saved (stopped) reply replaces the followed one.
    expect(await within(log()).findByText(conv.saved.content)).toBeInTheDocument();
    expect(within(log()).queryByText('List comprehensions')).toBeNull();
    expect(log().querySelectorAll('.assistant-msg.is-assistant')).toHaveLength(1);
  });

  it('a logout in another tab leaves the assistant for sign-in, forgets the conversation and empties the cache', async () => {
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    const { router } = await ready();
    expect(within(log()).getByText(STORED.messages[1]!.content)).toBeInTheDocument();
    await waitFor(async () => expect(await chatCache.getConversation(USER.id, STORED.id)).not.toBeNull());

    // Another tab removed the tokens: this tab hears a `storage` event.
    act(() => {
      for (const key of ['access_token', 'refresh_token', 'user', 'glob_access_token', 'glob_refresh_token', 'glob_user'])
        localStorage.removeItem(key);
      window.dispatchEvent(new StorageEvent('storage', { key: 'access_token' }));
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    expect(screen.queryByText(STORED.messages[1]!.content)).toBeNull();
    expect(localStorage.getItem(LAST_CONVERSATION_KEY)).toBeNull();
    await waitFor(async () => expect(await chatCache.getConversation(USER.id, STORED.id)).toBeNull());
  });

  it('empties the cache when a different user signs in', async () => {
    await chatCache.ensureUser('someone-else');
    await chatCache.putConversation('someone-else', { conversation_id: 'c1', title: 'Theirs', model_id: null, updated_at: '', messages: [] });
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    let asked = 0;
    server.use(
      plain.get(`${API}/chat/conversations/:id`, () => {
        asked += 1;
        return HttpResponse.json({ conversation: STORED });
      }),
    );
    await ready();
    expect(await chatCache.getConversation('someone-else', 'c1')).toBeNull();
    // The other user's remembered conversation is not reopened.
    expect(asked).toBe(0);
    expect(within(log()).getByText(TEXT.greeting)).toBeInTheDocument();
  });
});

describe('assistant page: message actions and shortcuts', () => {
  const done = (text: string) =>
    timedStream([
      { type: 'token', text },
      { type: 'done', success: true, usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, stop_reason: 'stop' },
    ]);
  // The server's copy of the two turns (its ids are what replace_from names).
  const storedUsers = [
    { ...STORED.messages[0]!, id: '11111111-1111-4111-8111-111111111111', content: 'First' },
    { ...STORED.messages[0]!, id: '33333333-3333-4333-8333-333333333333', content: 'Second' },
  ];
  const storedTurns = {
    ...STORED,
    messages: [storedUsers[0]!, { ...STORED.messages[1]!, content: 'Answer 1' }, storedUsers[1]!, { ...STORED.messages[1]!, content: 'Answer 2' }],
  };

  async function twoTurns() {
    let n = 0;
    const bodies = onStart(() => done(`Answer ${(n += 1)}`));
    server.use(plain.get(`${API}/chat/conversations/:id`, () => HttpResponse.json({ conversation: storedTurns })));
    const ctx = await ready();
    await ctx.user.type(field(), 'First{Enter}');
    expect(await within(log()).findByText('Answer 1')).toBeInTheDocument();
    await waitFor(() => expect(field()).not.toBeDisabled());
    await ctx.user.type(field(), 'Second{Enter}');
    expect(await within(log()).findByText('Answer 2')).toBeInTheDocument();
    await waitFor(() => expect(field()).not.toBeDisabled());
    return { ...ctx, bodies };
  }
  const bubble = (text: string) => within(log()).getByText(text).closest('.assistant-msg') as HTMLElement;

  it('copies any message with its Copy action', async () => {
    const { user } = await twoTurns();
    const written = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(within(bubble('Second')).getByRole('button', { name: REPLY_TEXT.copy }));
    expect(written).toHaveBeenCalledWith('Second');
    await user.click(within(bubble('Answer 2')).getByRole('button', { name: REPLY_TEXT.copy }));
    expect(written).toHaveBeenLastCalledWith('Answer 2');
  });

  it('regenerates only the last reply: its user message is sent again in place of the old turn', async () => {
    const { user, bodies } = await twoTurns();
    expect(within(bubble('Answer 1')).queryByRole('button', { name: REPLY_TEXT.regenerate })).toBeNull();
    await user.click(within(bubble('Answer 2')).getByRole('button', { name: REPLY_TEXT.regenerate }));
    expect(await within(log()).findByText('Answer 3')).toBeInTheDocument();
    expect(bodies.at(-1)).toMatchObject({ prompt: 'Second', conversation_id: CREATED.id, replace_from: storedUsers[1]!.id });
    expect(within(log()).queryByText('Answer 2')).toBeNull();
    expect(within(log()).getAllByText('Second')).toHaveLength(1);
  });

  it('edits a message and resends it after confirming that the later turns go', async () => {
    const { user, bodies } = await twoTurns();
    await user.click(within(bubble('First')).getByRole('button', { name: REPLY_TEXT.edit }));
    const box = screen.getByRole('textbox', { name: REPLY_TEXT.editLabel });
    await user.clear(box);
    await user.type(box, 'First, better');
    await user.click(screen.getByRole('button', { name: REPLY_TEXT.saveAndSend }));
    const dialog = screen.getByRole('alertdialog', { name: REPLY_TEXT.discardTitle });
    await user.click(within(dialog).getByRole('button', { name: REPLY_TEXT.saveAndSend }));
    expect(await within(log()).findByText('Answer 3')).toBeInTheDocument();
    expect(bodies.at(-1)).toMatchObject({ prompt: 'First, better', replace_from: storedUsers[0]!.id });
    for (const gone of ['First', 'Answer 1', 'Second', 'Answer 2']) expect(within(log()).queryByText(gone)).toBeNull();
  });

  it('Esc stops a reply, Shift+Esc focuses the message box; the shortcuts are listed in the help', async () => {
    const stream = controlledStream();
    onStart(() => stream.response());
    const stops: string[] = [];
    server.use(
      plain.post(`${API}/inference/stream/:id/stop`, ({ params }) => {
        stops.push(String(params.id));
        setTimeout(() => stream.done({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, 'abort'), 10);
        return HttpResponse.json({ stopped: true, stream_id: String(params.id) });
      }),
    );
    const { user } = await ready();
    await user.type(field(), 'Go on{Enter}');
    stream.token('Going');
    expect(await within(log()).findByText('Going')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(stops).toHaveLength(1));
    await user.click(screen.getByRole('button', { name: REPLY_TEXT.shortcuts }));
    expect(screen.getByText('Stop generating')).toBeInTheDocument();
    await user.keyboard('{Shift>}{Escape}{/Shift}');
    expect(field()).toHaveFocus();
  });
});

describe('assistant page: chat settings', () => {
  it('sets a new conversation’s system prompt and parameters: created with them, each turn sent with them', async () => {
    const creates: Array<Record<string, unknown>> = [];
    server.use(
      plain.post(`${API}/chat/conversations`, async ({ request }) => {
        creates.push((await request.json()) as Record<string, unknown>);
        return HttpResponse.json({ conversation: CREATED }, { status: 201 });
      }),
    );
    const bodies = onStart(() =>
      timedStream([{ type: 'done', success: true, usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 }, stop_reason: 'stop' }]),
    );
    const { user } = await ready();
    await user.click(screen.getByRole('button', { name: SETTINGS_TEXT.open }));
    await user.type(screen.getByLabelText(SETTINGS_TEXT.systemPrompt), 'Be brief.');
    const temperature = screen.getByLabelText(SETTINGS_TEXT.temperature);
    await user.clear(temperature);
    await user.type(temperature, '0.2');
    await user.click(screen.getByRole('button', { name: SETTINGS_TEXT.save }));
    expect(screen.queryByLabelText(SETTINGS_TEXT.systemPrompt)).toBeNull();
    await user.type(field(), 'Hi{Enter}');
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(creates[0]).toMatchObject({ settings: { system_prompt: 'Be brief.', temperature: 0.2, max_tokens: 2048, top_p: 0.9 } });
    // The turn carries no parameters: the server applies the conversation's.
    expect(bodies[0]).not.toHaveProperty('params');
  });

  it('saves an open conversation’s settings on the server, and refuses values out of range with the field focused', async () => {
    const updates: Array<Record<string, unknown>> = [];
    server.use(
      plain.put(`${API}/chat/conversations/:id`, async ({ request }) => {
        const body = (await request.json()) as { settings: object };
        updates.push(body);
        return HttpResponse.json({ conversation: { ...STORED, settings: body.settings } });
      }),
    );
    localStorage.setItem(LAST_CONVERSATION_KEY, STORED.id);
    const { user } = await ready();
    expect(await within(log()).findByText(STORED.messages[0]!.content)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: SETTINGS_TEXT.open }));
    const topP = screen.getByLabelText(SETTINGS_TEXT.topP);
    await user.clear(topP);
    await user.type(topP, '5');
    await user.click(screen.getByRole('button', { name: SETTINGS_TEXT.save }));
    expect(screen.getByText(SETTINGS_TEXT.invalid.top_p)).toBeInTheDocument();
    expect(topP).toHaveFocus();
    expect(updates).toHaveLength(0);
    await user.clear(topP);
    await user.type(topP, '0.5');
    await user.click(screen.getByRole('button', { name: SETTINGS_TEXT.save }));
    await waitFor(() => expect(updates).toEqual([{ settings: { system_prompt: '', temperature: 0.7, max_tokens: 2048, top_p: 0.5 } }]));
  });
});

describe('assistant page: the conversation in the URL', () => {
  it('opens the conversation the URL names, not the remembered one', async () => {
    localStorage.setItem(LAST_CONVERSATION_KEY, '99999999-9999-4999-8999-999999999999');
    const router = await visitRoute(`/app/assistant/${STORED.id}`);
    expect(await screen.findByText(STORED.messages[1]!.content)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(`/app/assistant/${STORED.id}`);
  });

  it('back and forward move between the conversations the URL named, each from the query cache', async () => {
    const trip = { ...STORED, id: '6d8e0a2c-4b6f-4e1a-9c3d-5f7b9d1e3a50', conversation_id: '6d8e0a2c-4b6f-4e1a-9c3d-5f7b9d1e3a50' };
    const tripMessages = [{ ...STORED.messages[0]!, content: 'Plan a trip to Lisbon' }];
    server.use(
      plain.get(`${API}/chat/conversations/:id`, ({ params }) =>
        HttpResponse.json({ conversation: params.id === trip.id ? { ...trip, messages: tripMessages } : STORED }),
      ),
    );
    const user = userEvent.setup();
    const { router } = await renderAssistant(undefined, `/app/assistant/${STORED.id}`);
    await screen.findByRole('heading', { level: 1, name: 'AI Assistant' });
    expect(await within(log()).findByText(STORED.messages[1]!.content)).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: /^Trip plan for Lisbon/ }));
    expect(await within(log()).findByText('Plan a trip to Lisbon')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(`/app/assistant/${trip.id}`);

    act(() => router.history.back());
    expect(await within(log()).findByText(STORED.messages[1]!.content)).toBeInTheDocument();
    expect(within(log()).queryByText('Plan a trip to Lisbon')).toBeNull();
    act(() => router.history.forward());
    expect(await within(log()).findByText('Plan a trip to Lisbon')).toBeInTheDocument();
    expect(localStorage.getItem(LAST_CONVERSATION_KEY)).toBe(trip.id);
  });

  it('names a new conversation in the URL once its first message created it, and goes back to /app/assistant for a new one', async () => {
    onStart(() =>
      timedStream([{ type: 'done', success: true, usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 }, stop_reason: 'stop' }]),
    );
    const user = userEvent.setup();
    const router = await visitRoute('/app/assistant');
    await screen.findByRole('heading', { level: 1, name: 'AI Assistant' });
    await waitFor(() => expect(field()).not.toBeDisabled());
    await user.type(field(), 'Hello{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe(`/app/assistant/${CREATED.id}`));
    await waitFor(() => expect(field()).not.toBeDisabled());
    await user.keyboard('{Control>}{Shift>}o{/Shift}{/Control}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/assistant'));
  });
});
