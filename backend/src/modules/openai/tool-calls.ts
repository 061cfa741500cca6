import { BadRequestException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { isFramedJson, type JsonFrame, type ToolFormat } from '@glob/engine/tool-format';
import type { RequestBody, Schemas } from '../../contract/types';
import type { JobTurn } from '../../jobs/jobs';
import { ANY_OBJECT, grammarSchema, type JsonSchema, SchemaTally } from './json-schema';

type ChatRequest = RequestBody<'createChatCompletion'>;
type Message = ChatRequest['messages'][number];
type ToolCall = Schemas['ToolCall'];
export type Turn = JobTurn;

/**
 * How a tools reply is written. In the model family's native format (`frame`: Llama 3's `{"name", "parameters"}`,
 * Qwen's `<tool_call>` around `{"name", "arguments"}`), a call is that JSON in its frame and an answer plain text. In
 * the generic one (models without a native format, as llama.cpp's server does for them), the reply is one JSON
 * object: `{"name": …, "arguments": …}` for a call or, where it may choose, `{"response": …}` for an answer.
 */
export interface Envelope {
  /** The generic format's answer is a JSON string (else JSON matching `response_format`). */
  responseIsText: boolean;
  /** The key of a call's arguments (`arguments` unless the family's format says otherwise). */
  argsKey?: string;
  frame?: JsonFrame;
}

/**
 * How a reply is read: plain text; JSON text (`response_format`), sent as it comes; or a tools reply (Envelope). The
 * grammar that the reply's JSON must match, and its frame, travel with the job.
 */
export type ReplyPlan =
  | { kind: 'text'; turns: Turn[] }
  | { kind: 'json'; turns: Turn[]; jsonSchema: JsonSchema }
  | { kind: 'tools'; turns: Turn[]; jsonSchema: JsonSchema; envelope: Envelope };

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
 * The conversation as chat turns in the family's native format: an assistant's tool calls stay calls, each with the
 * content of the tool message that answers it (the template renders both as the family does). 400 when the messages
 * do not make a conversation, or a call has no answer.
 */
function nativeConversation(messages: Message[]): Turn[] {
  const calls = new Map<string, Schemas['JobToolCall'] & { answered: boolean }>();
  const turns: Turn[] = [];
  for (const [i, m] of messages.entries()) {
    const at = `messages[${i}]`;
    const text = textOf(m.content);
    if (m.role === 'assistant') {
      if (!text && !m.tool_calls?.length) throw new BadRequestException(`${at}: an assistant message needs content or tool_calls`);
      const made = (m.tool_calls ?? []).map((c) => {
        const call = { name: c.function.name, arguments: c.function.arguments, result: '', answered: false };
        calls.set(c.id, call);
        return call;
      });
      turns.push({ role: 'assistant', content: text, ...(made.length ? { tool_calls: made } : {}) });
      continue;
    }
    if (m.content == null) throw new BadRequestException(`${at}.content: is required for role ${m.role}`);
    if (m.role === 'tool') {
      const call = m.tool_call_id ? calls.get(m.tool_call_id) : undefined;
      if (!call) throw new BadRequestException(`${at}.tool_call_id: must name a call of an earlier assistant message`);
      call.result = text;
      call.answered = true;
      continue;
    }
    turns.push({ role: m.role === 'developer' ? 'system' : m.role, content: text });
  }
  for (const [id, call] of calls) {
    if (!call.answered) throw new BadRequestException(`messages: the tool call ${id} has no tool message answering it`);
  }
  const last = messages.at(-1)!.role;
  if (last !== 'user' && last !== 'tool') throw new BadRequestException('messages: the last message must have role user or tool');
  // Only the fields the job carries (the spec's JobToolCall).
  return turns.map((t) =>
    t.role === 'assistant' && t.tool_calls
      ? { ...t, tool_calls: t.tool_calls.map(({ name, arguments: args, result }) => ({ name, arguments: args, result })) }
      : t,
  );
}

/**
 * The conversation as chat turns, in the generic format: `developer` is `system`; an assistant's tool calls are
 * written as the envelopes the model answered with; a tool's answer is a user turn naming the function it answers.
 * 400 when the messages do not make a conversation (a turn without content, a tool answer to no call, a last turn
 * that is not the user's or a tool's).
 */
function conversation(messages: Message[]): Turn[] {
  const calls = new Map<string, string>();
  const answered = new Set<string>();
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
      answered.add(m.tool_call_id!);
      return { role: 'user', content: `The function ${name} returned: ${text}` };
    }
    return { role: m.role === 'developer' ? 'system' : m.role, content: text };
  });
  for (const id of calls.keys()) {
    if (!answered.has(id)) throw new BadRequestException(`messages: the tool call ${id} has no tool message answering it`);
  }
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
 * served: a tool choice naming no tool, duplicate tool names, a JSON-schema keyword no grammar can enforce). With
 * the model family's native tool format (`native`, read from its template), tools, calls and results are rendered
 * and written as the family does; an answer that may be a call or JSON (`tool_choice` auto with `response_format`)
 * has no native form, and is planned in the generic format.
 */
export function planReply(body: ChatRequest, native: ToolFormat | null = null): ReplyPlan {
  // The schemas' limits hold for all of them together: they become one grammar.
  const tally = new SchemaTally();
  const format = formatSchema(body.response_format, tally);
  const tools = body.tools ?? [];
  const choice = body.tool_choice ?? (tools.length ? 'auto' : 'none');
  const family = native && !(choice === 'auto' && format) ? native : null;
  const turns = family ? nativeConversation(body.messages) : conversation(body.messages);
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
  const argsKey = family?.argsKey ?? 'arguments';
  const calls: JsonSchema[] = callable.map(({ function: f }, i) => ({
    type: 'object',
    properties: {
      name: { const: f.name },
      [argsKey]: f.parameters ? grammarSchema(f.parameters, `tools[${tools.indexOf(callable[i]!)}].function.parameters`, tally) : ANY_OBJECT,
    },
    required: ['name', argsKey],
    additionalProperties: false,
  }));
  const mayAnswer = choice === 'auto';
  if (family) {
    const specs = callable.map(({ function: f }) => ({
      name: f.name,
      ...(f.description ? { description: f.description } : {}),
      ...(f.parameters ? { parameters: f.parameters } : {}),
    }));
    return {
      kind: 'tools',
      turns: [{ role: 'tools', content: '', tools: specs }, ...turns],
      jsonSchema: calls.length === 1 ? calls[0]! : { oneOf: calls },
      envelope: { responseIsText: true, argsKey, frame: { before: family.before, after: family.after, ...(mayAnswer ? { or_text: true } : {}) } },
    };
  }
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
    envelope: { responseIsText: !format },
  };
}

/** A new tool call's id, as OpenAI's look. */
export const toolCallId = () => `call_${randomBytes(12).toString('base64url')}`;

/** The start of a call up to its arguments' first character (`argsKey`: the key they are written under). */
const callStart = (argsKey: string) =>
  new RegExp(
    `^\\s*\\{\\s*"name"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")\\s*,\\s*${JSON.stringify(argsKey).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:\\s*(?=\\S)`,
  );
/** The start of an answer up to its value's first character. */
const ANSWER_START = /^\s*\{\s*"response"\s*:\s*(?=\S)/;

/**
 * A call's arguments as far as they are surely written: without a last `}` that may be the envelope's own, followed
 * by nothing but whitespace and the start of the frame's end (`after`).
 */
function heldBack(rest: string, after: string): string {
  const close = rest.lastIndexOf('}');
  if (close >= 0) {
    const tail = rest.slice(close + 1).trimStart();
    if (after.trimStart().startsWith(tail)) return rest.slice(0, close).trimEnd();
  }
  return rest.trimEnd();
}

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
 * Reads a tools reply while it is written, so a stream can pass it on as it comes: first the call (its name) or the
 * answer, then the call's arguments or the answer's text piece by piece. The grammar writes `name` before the
 * arguments, so the call is known before its arguments start. In a native format, a reply that does not open as a
 * call is a plain-text answer. `end()` gives the rest once the reply is complete.
 */
export class EnvelopeReader {
  private text = '';
  private mode: 'start' | 'call' | 'answer' | 'text' = 'start';
  private start = 0;
  private sent = 0;
  private id = toolCallId();
  private readonly callStart: RegExp;

  constructor(private readonly envelope: Envelope) {
    this.callStart = callStart(envelope.argsKey ?? 'arguments');
  }

  push(piece: string): EnvelopePiece[] {
    this.text += piece;
    return this.read(false);
  }

  end(): EnvelopePiece[] {
    return this.read(true);
  }

  private read(final: boolean): EnvelopePiece[] {
    const out: EnvelopePiece[] = [];
    const frame = this.envelope.frame;
    if (this.mode === 'start') {
      if (frame) {
        if (!this.text) return out;
        // Not the framed call: a plain-text answer (or, where none was allowed, text the platform will fail).
        if (!isFramedJson(frame, this.text)) this.mode = 'text';
        else if (this.text.length < frame.before.length || !this.text.startsWith(frame.before)) {
          if (final) out.push({ content: this.text });
          return out;
        }
      }
    }
    if (this.mode === 'start') {
      const offset = frame ? frame.before.length : 0;
      const call = this.callStart.exec(this.text.slice(offset));
      const answer = call || frame ? null : ANSWER_START.exec(this.text);
      if (call) {
        this.mode = 'call';
        this.start = offset + call[0].length;
        out.push({ call: { id: this.id, name: JSON.parse(call[1]!) as string } });
      } else if (answer) {
        this.mode = 'answer';
        // A text answer's value starts after its opening quote.
        this.start = answer[0].length + (this.envelope.responseIsText ? 1 : 0);
      } else {
        // Not an envelope after all (a reply cut short before it began one): its text as it is.
        if (final && this.text) out.push({ content: this.text });
        return out;
      }
    }
    const rest = this.text.slice(this.start);
    let value: string;
    if (this.mode === 'text') value = rest;
    else if (this.mode === 'answer' && this.envelope.responseIsText) {
      const decoded = decodeString(rest);
      value = decoded.text;
    } else if (final) {
      // The value's JSON text, without the envelope's closing brace and the frame's end.
      const after = frame?.after ?? '';
      const body = after && rest.endsWith(after) ? rest.slice(0, -after.length) : rest;
      value = body.slice(0, body.lastIndexOf('}')).trimEnd();
    } else value = heldBack(rest, frame?.after ?? '');
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

/** A whole tools reply (one that ended) as the answer's message: a tool call, or text. */
export function readEnvelope(text: string, envelope: Envelope): { content: string | null; toolCall: ToolCall | null } {
  const reader = new EnvelopeReader(envelope);
  const answer = new AnswerParts();
  for (const piece of [...reader.push(text), ...reader.end()]) answer.add(piece);
  return answer.toolCall ? { content: null, toolCall: answer.toolCall } : { content: answer.text, toolCall: null };
}
