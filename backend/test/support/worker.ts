import type { ChildProcess } from 'node:child_process';
import type { TestStack } from './app';
import { spawnSource, stackProcessEnv } from './stack-process';

export interface WorkerProcess {
  child: ChildProcess;
  nodeId: string;
  output(): string;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<number | null>;
}

/** A worker process (src/worker.ts) on the stack's database and Redis prefix, the tiny model by default; not waited for. */
export function spawnWorker(stack: TestStack, env: Record<string, string>, name: string): { child: ChildProcess; output: () => string } {
  return spawnSource('src/worker.ts', {
    ...stackProcessEnv(stack),
    DATABASE_POOL_SIZE: '3',
    WORKER_MODELS: 'glob-tiny-chat',
    WORKER_NAME: name,
    INFERENCE_THREADS: '1',
    HEARTBEAT_SECONDS: '2',
    JOB_LOCK_MS: '4000',
    JOB_STALLED_INTERVAL_MS: '1500',
    SHUTDOWN_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'log',
    ...env,
  });
}

/**
 * A real worker process (src/worker.ts) on the stack's database and Redis prefix, running llama.cpp with
 * the tiny model. Resolves once it has registered its node with the model loaded.
 */
export async function startWorker(stack: TestStack, env: Record<string, string> = {}, name = `test-worker-${Date.now()}`): Promise<WorkerProcess> {
  const { child, output } = spawnWorker(stack, env, name);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [row] = (await stack.db.query(`SELECT id FROM nodes WHERE name = $1 AND stopped_at IS NULL`, [name])) as Array<{ id: string }>;
    if (row && /Node .* serving/.test(output())) {
      return {
        child,
        nodeId: row.id,
        output,
        stop: () =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
            child.once('exit', (code) => resolve(code));
            child.kill('SIGTERM');
          }),
      };
    }
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Worker did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The text a reply's events carried: its token events, joined. */
export const replyText = (events: SseEvent[]): string =>
  events
    .filter((e) => e.data.type === 'token')
    .map((e) => e.data.text)
    .join('');

export interface SseEvent {
  id: number;
  data: {
    type: string;
    text?: string;
    code?: string;
    message?: string;
    stop_reason?: string;
    usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    success?: boolean;
  };
}

/** An `onEvent` for readSse that runs `act` once, when the first token arrives (to stop, kill or revoke mid-reply). */
export function atFirstToken(act: () => void): (e: SseEvent) => void {
  let acted = false;
  return (e) => {
    if (acted || e.data.type !== 'token') return;
    acted = true;
    act();
  };
}

/** Reads a text/event-stream response incrementally; `onEvent` sees each event as it arrives. */
export async function readSse(res: Response, onEvent?: (e: SseEvent) => void | 'stop'): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let idx;
    while ((idx = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, idx);
      buf = buf.slice(idx + 2);
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data) continue;
      const event = { id: Number(id), data: JSON.parse(data) as SseEvent['data'] };
      events.push(event);
      if (onEvent?.(event) === 'stop') {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

/**
 * POST /api/inference/stream/start with fetch (not supertest), so the reply's event stream can be read as it comes;
 * `signal` aborts it (a tab closed).
 */
export function startReply(stack: TestStack, auth: Record<string, string>, body: object, signal?: AbortSignal): Promise<Response> {
  return fetch(`${stack.url}/api/inference/stream/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify(body),
    signal,
  });
}

/** The inference_tasks row of a stream. */
export async function taskOf<T = Record<string, unknown>>(stack: TestStack, streamId: string): Promise<T> {
  return ((await stack.db.query(`SELECT * FROM inference_tasks WHERE stream_id = $1`, [streamId])) as T[])[0]!;
}
