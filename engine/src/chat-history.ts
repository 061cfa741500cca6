import type { components } from '@glob/contract';
import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };

/** A function the model may call, as its chat template is given it (OpenAI's `tools[].function`). */
export type ToolSpec = components['schemas']['JobToolSpec'];

/** A call an assistant turn made (its arguments as JSON text) and what the function returned. */
export type ToolCallTurn = components['schemas']['JobToolCall'];

/**
 * One turn of a chat, as jobs carry it. Where the model's template has a native tool format, the tools it may call
 * are a `tools` turn (first), and an assistant turn's calls, with their results, are rendered in that format;
 * otherwise tools never reach a generator as such (the platform writes them into a system turn).
 */
export type ChatTurn = components['schemas']['JobMessage'];

/**
 * The functions a history offers travel on its first item, under this key, to the chat wrapper (chat-wrapper.ts
 * hands them to the template): node-llama-cpp only passes functions it will call itself, which a reply generated
 * under the platform's own grammar must not have.
 */
export const HISTORY_FUNCTIONS = 'globAvailableFunctions';

/** A call's arguments as the template is given them: the JSON value, or the text where it does not parse. */
function params(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/**
 * The turns as node-llama-cpp's chat wrappers take them. The engine generates from it and the platform's token
 * counter counts the prompt from it, so both see the same prompt. A trailing assistant turn is continued (prefill,
 * or the answer after its calls' results); otherwise the answer starts a new one.
 */
export function chatHistory(messages: ChatTurn[]): Nlc.ChatHistoryItem[] {
  let functions: Nlc.ChatModelFunctions | undefined;
  const history: Nlc.ChatHistoryItem[] = [];
  for (const t of messages) {
    if (t.role === 'tools') {
      functions = Object.fromEntries(
        (t.tools ?? []).map((f) => [
          f.name,
          { ...(f.description ? { description: f.description } : {}), ...(f.parameters ? { params: f.parameters } : {}) },
        ]),
      ) as Nlc.ChatModelFunctions;
    } else if (t.role === 'assistant') {
      const calls = (t.tool_calls ?? []).map((c): Nlc.ChatModelFunctionCall => ({
        type: 'functionCall',
        name: c.name,
        params: params(c.arguments),
        result: c.result,
      }));
      history.push({ type: 'model', response: [...(t.content || !calls.length ? [t.content] : []), ...calls] });
    } else if (t.role === 'system') history.push({ type: 'system', text: t.content });
    else history.push({ type: 'user', text: t.content });
  }
  if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] });
  if (functions) Object.assign(history[0]!, { [HISTORY_FUNCTIONS]: functions });
  return history;
}
