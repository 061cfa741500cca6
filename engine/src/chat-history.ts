import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * The turns as node-llama-cpp's chat wrappers take them. The engine generates from it and the platform's token
 * counter counts the prompt from it, so both see the same prompt. A trailing assistant turn is continued (prefill);
 * otherwise the answer starts a new one.
 */
export function chatHistory(messages: ChatTurn[]): Nlc.ChatHistoryItem[] {
  const history: Nlc.ChatHistoryItem[] = messages.map((t) =>
    t.role === 'assistant'
      ? { type: 'model', response: [t.content] }
      : t.role === 'system'
        ? { type: 'system', text: t.content }
        : { type: 'user', text: t.content },
  );
  if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}
