import type { Response as SupertestResponse } from 'supertest';
import { startStack, type TestStack } from './app';
import { expectSpecResponse, expectSpecSchema } from './contract';
import { closeChecked } from './ledger-check';
import { startWorker, type WorkerProcess } from './worker';

/** The operation of each /v1 path, to check its answers against. */
const OPERATIONS: Record<string, string> = {
  '/v1/models': 'listOpenAiModels',
  '/v1/chat/completions': 'createChatCompletion',
  '/v1/completions': 'createCompletion',
  '/v1/embeddings': 'createEmbedding',
};

/**
 * A `fetch` for third-party clients (openai, the AI SDK, LangChain) that checks every /v1 answer against the spec:
 * JSON bodies by status, each streamed chunk by its schema. `settle()` gives what it found wrong so far.
 */
export class SpecCheckedFetch {
  /** The last answer's headers. */
  lastHeaders = new Headers();
  /** The bodies of the requests sent, parsed. */
  readonly requests: Array<Record<string, unknown>> = [];
  private readonly problems: string[] = [];
  /** SSE bodies still being read for the check. */
  private readonly pending: Array<Promise<void>> = [];

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body === 'string') this.requests.push(JSON.parse(init.body) as Record<string, unknown>);
    const res = await fetch(input, init);
    this.lastHeaders = res.headers;
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    const operation = OPERATIONS[path];
    if (!operation) this.problems.push(`no operation for ${path}`);
    else if (res.headers.get('content-type')?.startsWith('text/event-stream')) this.pending.push(this.checkStream(res.clone()));
    else {
      const text = await res.clone().text();
      try {
        expectSpecResponse({ status: res.status, text, body: text ? JSON.parse(text) : {} } as SupertestResponse, operation);
      } catch (err) {
        this.problems.push(String(err));
      }
    }
    return res;
  };

  async settle(): Promise<string[]> {
    await Promise.all(this.pending.splice(0));
    return this.problems.splice(0);
  }

  private async checkStream(res: Response): Promise<void> {
    // A stream the client aborted ends without its last events: what arrived is checked as it can be.
    const text = await res.text().catch(() => '');
    for (const block of text.split('\n\n').filter(Boolean)) {
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data || data === '[DONE]') continue;
      const parsed = JSON.parse(data) as { object?: string };
      // A legacy completion streams `text_completion` chunks; a chat completion `chat.completion.chunk` ones.
      const schema =
        'error' in parsed ? 'ChatCompletionStreamError' : parsed.object === 'text_completion' ? 'CompletionChunk' : 'ChatCompletionChunk';
      try {
        expectSpecSchema(schema, parsed);
      } catch (err) {
        this.problems.push(String(err));
      }
    }
  }
}

/**
 * For a /v1 test file: a stack (no welcome bonus) with one real worker started before its tests, and every answer a
 * client gets through `checked.fetch` held to the spec after each test; the ledger is checked when it closes.
 */
export function workerStack(workerName: string, workerEnv: Record<string, string> = {}) {
  const checked = new SpecCheckedFetch();
  const harness = { checked } as { stack: TestStack; worker: WorkerProcess; checked: SpecCheckedFetch };
  beforeAll(async () => {
    harness.stack = await startStack({ env: { WELCOME_BONUS_GLOB: '0' } });
    harness.worker = await startWorker(harness.stack, workerEnv, workerName);
  }, 90_000);
  afterEach(async () => {
    expect(await checked.settle()).toEqual([]);
  });
  afterAll(async () => {
    await harness.worker?.stop();
    await closeChecked(harness.stack);
  }, 60_000);
  return harness;
}
