/**
 * A JSON schema's GBNF grammar text, written on a thread of its own.
 *
 * node-llama-cpp's createGrammarForJsonSchema writes the text in JavaScript on the caller's thread, then has llama.cpp
 * parse it. Measured on this machine (2 cores, loaded by other work) for the largest schemas the API's limits allow
 * (ChatCompletionRequest's x-json-schema-limits: 255 properties, or four enums of 256 values, or every limit at once):
 * writing the text took 4-9 ms, parsing it 0.5-3 ms, and each reply's grammar state 0.3-3 ms. The text is the largest
 * part and the only one that needs no native object, so it is written here, and the event loop, where every other
 * reply's tokens pass, keeps only llama.cpp's parse (once per schema, then cached) and each reply's state.
 *
 * The thread loads node-llama-cpp's JSON-schema grammar writer alone (pure JavaScript, no native addon, ~70 ms once):
 * the module createGrammarForJsonSchema itself calls, so the text is the same. It is not one of the package's
 * exports; a node-llama-cpp that moves it fails every grammar with this file named, not silently.
 */
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The thread's code, as a string so that it runs the same from src (swc), from dist and from the agent's bundle. */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const writer = import(workerData.url);
parentPort.on('message', async ({ id, schema }) => {
  try {
    const { getGbnfGrammarForGbnfJsonSchema } = await writer;
    parentPort.postMessage({ id, grammar: getGbnfGrammarForGbnfJsonSchema(schema) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
});
`;

/** Where node-llama-cpp keeps the function createGrammarForJsonSchema writes a schema's grammar with. */
function writerUrl(): string {
  return pathToFileURL(join(dirname(require.resolve('node-llama-cpp')), 'utils', 'gbnfJson', 'getGbnfGrammarForGbnfJsonSchema.js')).href;
}

/** Writes JSON schemas' grammars on one thread, started on first use; requests are answered in turn. */
export class JsonSchemaGbnf {
  private thread: Worker | undefined;
  private readonly pending = new Map<number, { thread: Worker; resolve: (grammar: string) => void; reject: (err: Error) => void }>();
  private seq = 0;

  /** The GBNF text node-llama-cpp's createGrammarForJsonSchema would parse for `schema`. */
  text(schema: object): Promise<string> {
    const id = ++this.seq;
    const thread = this.start();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { thread, resolve, reject });
      thread.postMessage({ id, schema });
    });
  }

  /** Stops the thread (it holds no native state); a later text() starts another. */
  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    await thread?.terminate();
  }

  private start(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(THREAD, { eval: true, workerData: { url: writerUrl() } });
    // A grammar being written never keeps a process alive on its own.
    thread.unref();
    thread.on('message', (m: { id: number; grammar?: string; error?: string }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error !== undefined) p?.reject(new Error(`JSON-schema grammar (engine/src/json-schema-gbnf.ts): ${m.error}`));
      else p?.resolve(m.grammar!);
    });
    const fail = (err: Error) => {
      for (const [id, p] of this.pending) {
        if (p.thread !== thread) continue;
        this.pending.delete(id);
        p.reject(err);
      }
      if (this.thread === thread) this.thread = undefined;
    };
    thread.on('error', fail);
    thread.on('exit', () => fail(new Error('the JSON-schema grammar thread exited')));
    this.thread = thread;
    return thread;
  }
}
