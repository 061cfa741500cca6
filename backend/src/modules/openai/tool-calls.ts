import { BadRequestException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { RequestBody, Schemas } from '../../contract/types';
import { ANY_OBJECT, grammarSchema, type JsonSchema, SchemaTally } from './json-schema';

type ChatRequest = RequestBody<'createChatCompletion'>;
type Message = ChatRequest['messages'][number];
type ToolCall = Schemas['ToolCall'];
export type Turn = { role: 'system' | 'user' | 'assistant'; content: string };

/**
 * How a reply is read: plain text; JSON text (`response_format`), sent as it comes; or a tool envelope, the JSON
 * object a model answers with when it has tools: `{"name": …, "arguments": …}` for a call or, where it may choose,
 * `{"response": …}` for an answer (the generic format llama.cpp's server uses for models without a native one).
 * The grammar that the reply's JSON must match travels with the job.
 */
export type ReplyPlan =
  | { kind: 'text'; turns: Turn[] }
  | { kind: 'json'; turns: Turn[]; jsonSchema: JsonSchema }
  | { kind: 'tools'; turns: Turn[]; jsonSchema: JsonSchema; responseIsText: boolean };

/** What the model is told about its tools, in a system turn before the conversation (its tokens are the prompt's). */
function toolsPrompt(tools: Schemas['ToolDefinition'][], mayAnswer: boolean): string {
  const list = tools
    .map(({ function: f }) =>
      [`- ${f.name}${f.description ? `: ${f.description}` : ''}`, `  arguments (JSON schema): ${JSON.stringify(f.parameters ?? {})}`].join('\n'),
    )
    .join('\n');
  const how = mayAnswer
    ? 'To call one, answer with only {"name": "<function name>", "arguments": {<its arguments>}}. To answer without calling one, answer with only {"response": <your answer>}.'
    : 'Answer by calling one of them, with only {"name": "<function name>", "arguments": {<its arguments>}}.';
  return `You can call these functions:\n${list}\n${how}`;
}

/** The text of a message's content: a string, or its text parts joined. */
const textOf = (content: Message['content']): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => p.text).join('') : '';

/** A call as the model would have written it: the envelope, its arguments as JSON where they parse. */
function envelopeOf(call: ToolCall): string {
  let args: unknown = call.function.arguments;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    // Kept as text: a client may send back arguments it edited.
  }
  return JSON.stringify({ name: call.function.name, arguments: args });
}

/**
 * The conversation as chat turns: `developer` is `system`; an assistant's tool calls are written as the envelopes
 * the model answered with; a tool's answer is a user turn naming the function it answers. 400 when the messages do
 * not make a conversation (a turn without content, a tool answer to no call, a last turn that is not the user's
 * or a tool's).
 */
function conversation(messages: Message[]): Turn[] {
  const calls = new Map<string, string>();
  const turns = messages.map((m, i): Turn => {
    const at = `messages[${i}]`;
    const text = textOf(m.content);
    if (m.role === 'assistant') {
      if (!text && !m.tool_calls?.length) throw new BadRequestException(`${at}: an assistant message needs content or tool_calls`);
      for (const c of m.tool_calls ?? []) calls.set(c.id, c.function.name);
      return { role: 'assistant', content: [text, ...(m.tool_calls ?? []).map(envelopeOf)].filter(Boolean).join('\n') };
    }
    if (m.content == null) throw new BadRequestException(`${at}.content: is required for role ${m.role}`);
    if (m.role === 'tool') {
      const name = m.tool_call_id ? calls.get(m.tool_call_id) : undefined;
      if (!name) throw new BadRequestException(`${at}.tool_call_id: must name a call of an earlier assistant message`);
      return { role: 'user', content: `The function ${name} returned: ${text}` };
    }
    return { role: m.role === 'developer' ? 'system' : m.role, content: text };
  });
  const last = messages.at(-1)!.role;
  if (last !== 'user' && last !== 'tool') throw new BadRequestException('messages: the last message must have role user or tool');
  return turns;
}

/** `system` text first: it joins the conversation's own system turn, or starts one. */
function withSystem(turns: Turn[], text: string): Turn[] {
  const [first, ...rest] = turns;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${text}` }, ...rest];
  return [{ role: 'system', content: text }, ...turns];
}

/** The schema a reply's JSON must match when it has to be JSON at all (`response_format`), else null. */
function formatSchema(format: ChatRequest['response_format'], tally: SchemaTally): JsonSchema | null {
  if (!format || format.type === 'text') return null;
  if (format.type === 'json_object') return ANY_OBJECT;
  const schema: unknown = 'json_schema' in format ? format.json_schema.schema : undefined;
  return schema ? grammarSchema(schema, 'response_format.json_schema.schema', tally) : ANY_OBJECT;
}

/**
 * A chat completion request as the turns a generator reads and how its reply is read (400 for what cannot be
 * served: a tool choice naming no tool, duplicate tool names, a JSON-schema keyword no grammar can enforce).
 */
export function planReply(body: ChatRequest): ReplyPlan {
  const turns = conversation(body.messages);
  // The schemas' limits hold for all of them together: they become one grammar.
  const tally = new SchemaTally();
  const format = formatSchema(body.response_format, tally);
  const tools = body.tools ?? [];
  const choice = body.tool_choice ?? (tools.length ? 'auto' : 'none');
  if (choice !== 'none' && tools.length === 0) throw new BadRequestException('tool_choice: needs tools');
  const names = new Set<string>();
  for (const t of tools) {
    if (names.has(t.function.name)) throw new BadRequestException(`tools: the name ${t.function.name} is used twice`);
    names.add(t.function.name);
  }
  // A stop sequence would cut the JSON a grammar is writing short, and JSON cut short is no answer.
  if ((format || choice !== 'none') && body.stop != null) throw new BadRequestException('stop: cannot be combined with tools or response_format');
  if (body.top_logprobs != null && body.logprobs !== true) throw new BadRequestException('top_logprobs: needs logprobs true');
  // A tool call's arguments are read out of the envelope the model writes: no token of the answer is its own.
  if (body.logprobs && choice !== 'none') throw new BadRequestException('logprobs: with tools is not supported');
  if (choice === 'none') return format ? { kind: 'json', turns, jsonSchema: format } : { kind: 'text', turns };

  const named = typeof choice === 'object' ? choice.function.name : null;
  if (named && !names.has(named)) throw new BadRequestException(`tool_choice: no tool is named ${named}`);
  const callable = named ? tools.filter((t) => t.function.name === named) : tools;
  const calls: JsonSchema[] = callable.map(({ function: f }, i) => ({
    type: 'object',
    properties: {
      name: { const: f.name },
      arguments: f.parameters ? grammarSchema(f.parameters, `tools[${tools.indexOf(callable[i]!)}].function.parameters`, tally) : ANY_OBJECT,
    },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  const mayAnswer = choice === 'auto';
  const answer: JsonSchema = {
    type: 'object',
    properties: { response: format ?? { type: 'string' } },
    required: ['response'],
    additionalProperties: false,
  };
  const branches = mayAnswer ? [...calls, answer] : calls;
  return {
    kind: 'tools',
    turns: withSystem(turns, toolsPrompt(callable, mayAnswer)),
    jsonSchema: branches.length === 1 ? branches[0]! : { oneOf: branches },
    responseIsText: !format,
  };
}

/** A new tool call's id, as OpenAI's look. */
export const toolCallId = () => `call_${randomBytes(12).toString('base64url')}`;

/** The start of a call up to its arguments' first character, and of an answer up to its value's first character. */
const CALL_START = /^\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"arguments"\s*:\s*(?=\S)/;
const ANSWER_START = /^\s*\{\s*"response"\s*:\s*(?=\S)/;
/** The end of an envelope: its closing brace, and the whitespace around it. */
const ENVELOPE_END = /\s*\}?\s*$/;

/** The complete string-literal prefix of `literal` (a JSON string's text after its opening quote) decoded, and whether it ended. */
function decodeString(literal: string): { text: string; closed: boolean } {
  let i = 0;
  let safe = 0;
  while (i < literal.length) {
    const c = literal[i]!;
    if (c === '"') return { text: JSON.parse(`"${literal.slice(0, i)}"`) as string, closed: true };
    if (c === '\\') {
      const width = literal[i + 1] === 'u' ? 6 : 2;
      if (i + width > literal.length) break;
      i += width;
    } else i += 1;
    safe = i;
  }
  return { text: JSON.parse(`"${literal.slice(0, safe)}"`) as string, closed: false };
}

export type EnvelopePiece = { call: { id: string; name: string } } | { arguments: string } | { content: string };

/**
 * Reads a tool envelope while it is written, so a stream can pass it on as it comes: first the call (its name) or
 * the answer, then the call's arguments or the answer's text piece by piece. The grammar writes `name` before
 * `arguments`, so the call is known before its arguments start. `end()` gives the rest once the reply is complete.
 */
export class EnvelopeReader {
  private text = '';
  private mode: 'start' | 'call' | 'answer' = 'start';
  private start = 0;
  private sent = 0;
  private id = toolCallId();

  constructor(private readonly responseIsText: boolean) {}

  push(piece: string): EnvelopePiece[] {
    this.text += piece;
    return this.read(false);
  }

  end(): EnvelopePiece[] {
    return this.read(true);
  }

  private read(final: boolean): EnvelopePiece[] {
    const out: EnvelopePiece[] = [];
    if (this.mode === 'start') {
      const call = CALL_START.exec(this.text);
      const answer = call ? null : ANSWER_START.exec(this.text);
      if (call) {
        this.mode = 'call';
        this.start = call[0].length;
        out.push({ call: { id: this.id, name: JSON.parse(call[1]!) as string } });
      } else if (answer) {
        this.mode = 'answer';
        // A text answer's value starts after its opening quote.
        this.start = answer[0].length + (this.responseIsText ? 1 : 0);
      } else {
        // Not an envelope after all (a reply cut short before it began one): its text as it is.
        if (final && this.text) out.push({ content: this.text });
        return out;
      }
    }
    const rest = this.text.slice(this.start);
    let value: string;
    if (this.mode === 'answer' && this.responseIsText) {
      const decoded = decodeString(rest);
      value = decoded.text;
    } else {
      // The value's JSON text, without the envelope's closing brace (held back until more text shows it is not).
      value = final ? rest.slice(0, rest.lastIndexOf('}')).trimEnd() : rest.replace(ENVELOPE_END, '');
    }
    if (value.length > this.sent) {
      const piece = value.slice(this.sent);
      this.sent = value.length;
      out.push(this.mode === 'call' ? { arguments: piece } : { content: piece });
    }
    return out;
  }
}

/** An answer put together from the pieces an envelope (or a plain reply) gives: its text, or the tool call it makes. */
export class AnswerParts {
  text = '';
  toolCall: ToolCall | null = null;

  add(piece: EnvelopePiece): void {
    if ('content' in piece) this.text += piece.content;
    else if ('call' in piece) this.toolCall = { id: piece.call.id, type: 'function', function: { name: piece.call.name, arguments: '' } };
    else this.toolCall!.function.arguments += piece.arguments;
  }
}

/** A whole envelope (a reply that ended) as the answer's message: a tool call, or text. */
export function readEnvelope(text: string, responseIsText: boolean): { content: string | null; toolCall: ToolCall | null } {
  const reader = new EnvelopeReader(responseIsText);
  const answer = new AnswerParts();
  for (const piece of [...reader.push(text), ...reader.end()]) answer.add(piece);
  return answer.toolCall ? { content: null, toolCall: answer.toolCall } : { content: answer.text, toolCall: null };
}
