/** Test-only helpers for the assistant's tests (never imported by app code). */
import { HttpResponse } from 'msw';
import type { ConversationSummary } from '../../api/queries/chat';
import { tokenStore } from '../../api/tokens';
import { example } from '../../mocks/examples';
import { renderWithProviders, testQueryClient, visitRoute } from '../../test/render';
import { AssistantPage } from './AssistantPage';

export const USER = example('/api/users/me', 'get', 200).user;

export function signIn(user = USER) {
  tokenStore.setUser(user);
  tokenStore.set({ access_token: 'access-1', refresh_token: 'refresh-1' });
}

/** The assistant in the app's route tree at `path` (its guards and loaders run), signed in or not. */
export async function renderAssistant(queryClient = testQueryClient(), path = '/app/assistant') {
  const router = await visitRoute(path, queryClient);
  return { router, queryClient, unmount: router.unmount };
}

/** The page alone, outside the signed-in area (what it shows in the moment a session ends). */
export const renderAssistantAlone = () => renderWithProviders(<AssistantPage />, { path: '/app/assistant' });

const encoder = new TextEncoder();
export const sseEvent = (id: number, data: unknown) => `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

/** An event stream the test writes to, one event at a time. */
export function controlledStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  let id = 0;
  return {
    response: () => new HttpResponse(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    token(text: string) {
      if (!closed) controller.enqueue(encoder.encode(sseEvent((id += 1), { type: 'token', text })));
    },
    done(usage = { prompt_tokens: 14, completion_tokens: 9, total_tokens: 23 }, stop_reason = 'stop') {
      if (closed) return;
      controller.enqueue(encoder.encode(sseEvent((id += 1), { type: 'done', success: true, usage, stop_reason })));
      this.close();
    },
    error(code: string, message: string) {
      if (closed) return;
      controller.enqueue(encoder.encode(sseEvent((id += 1), { type: 'error', code, message })));
      this.close();
    },
    close() {
      if (closed) return;
      closed = true;
      controller.close();
    },
  };
}

/** An event stream that emits `events` on its own, `delayMs` apart. */
export function timedStream(events: unknown[], delayMs = 40, firstId = 1) {
  const stream = new ReadableStream<Uint8Array>({
    async start(c) {
      for (const [i, e] of events.entries()) {
        await new Promise((r) => setTimeout(r, delayMs));
        c.enqueue(encoder.encode(sseEvent(firstId + i, e)));
      }
      c.close();
    },
  });
  return new HttpResponse(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

/** A listed conversation. */
export function summary(n: number, over: Partial<ConversationSummary> = {}): ConversationSummary {
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    conversation_id: id,
    id,
    title: `Conversation ${n}`,
    model_id: 'llama-3.3-70b-instruct',
    is_pinned: false,
    created_at: '2026-11-01T10:00:00.000Z',
    updated_at: new Date(Date.UTC(2026, 10, 1, 10, n)).toISOString(),
    metadata: { total_messages: 2, total_tokens: 20 },
    last_message_preview: null,
    ...over,
  };
}
