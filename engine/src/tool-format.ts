/**
 * A model family's native tool-call format, read from its chat template, and the grammar a reply in it is generated
 * under. Llama 3.x writes a call as `{"name": …, "parameters": {…}}`, Qwen 2.5 as
 * `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`: a JSON object, with text around it. A template whose calls
 * are not such an object (or that renders no calls) has no native format here, and the platform's generic envelope is
 * used instead.
 */
import { createRequire } from 'node:module';

/** How a call is written: `before`, the JSON object `{"name": <name>, "<argsKey>": <arguments>}`, `after`. */
export interface ToolFormat {
  before: string;
  argsKey: string;
  after: string;
}

/**
 * The text a reply's JSON is written inside (`before` JSON `after`), and whether the reply may instead be plain text
 * (`or_text`: a tool call's alternative, an answer). Plain text may not begin with what the framed JSON begins with
 * (its first character), so every reply reads as one or the other from its first character.
 */
export interface JsonFrame {
  before: string;
  after: string;
  or_text?: boolean;
}

const PROBE_NAME = 'probe_function_name';
const PROBE_ARGS = { probe_argument: 'probe value' };
const PROBE_TEXT = 'PROBE-REPLY-TEXT';

/**
 * The template's native call format, measured by rendering it (with the Jinja engine node-llama-cpp renders it with):
 * a conversation ending in an assistant turn that makes one call, against the same conversation ending in a plain
 * reply. Null when the template renders no calls, or renders them as something other than one JSON object.
 */
export function toolFormatOf(template: string | undefined): ToolFormat | null {
  if (!template) return null;
  const { Template } = createRequire(require.resolve('node-llama-cpp'))('@huggingface/jinja') as typeof import('@huggingface/jinja');
  let compiled: InstanceType<typeof Template>;
  try {
    compiled = new Template(template);
  } catch {
    return null;
  }
  const tools = [{ type: 'function', function: { name: PROBE_NAME, description: 'probe', parameters: { type: 'object', properties: {} } } }];
  const user = { role: 'user', content: 'probe question' };
  const render = (assistant: object) => {
    try {
      return compiled.render({ messages: [user, assistant], tools, add_generation_prompt: false, bos_token: '', eos_token: '' });
    } catch {
      return null;
    }
  };
  const call = {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'call_probe', type: 'function', function: { name: PROBE_NAME, arguments: PROBE_ARGS } }],
  };
  const withCall = render(call);
  const withText = render({ role: 'assistant', content: PROBE_TEXT });
  if (withCall === null || withText === null || !withCall.includes(PROBE_NAME)) return null;
  // What the reply's own text sits between: the rendering's common start, and what follows a plain reply.
  const textAt = withText.indexOf(PROBE_TEXT);
  if (textAt < 0) return null;
  let start = 0;
  while (start < textAt && withCall[start] === withText[start]) start++;
  const turnEnd = withText.slice(textAt + PROBE_TEXT.length);
  if (!withCall.endsWith(turnEnd)) return null;
  const written = withCall.slice(start, withCall.length - turnEnd.length);
  const open = written.indexOf('{');
  const close = written.lastIndexOf('}');
  if (open < 0 || close < open) return null;
  let object: unknown;
  try {
    object = JSON.parse(written.slice(open, close + 1));
  } catch {
    return null;
  }
  if (!object || typeof object !== 'object' || Array.isArray(object)) return null;
  const keys = Object.keys(object);
  const record = object as Record<string, unknown>;
  if (keys.length !== 2 || keys[0] !== 'name' || record.name !== PROBE_NAME) return null;
  const argsKey = keys[1]!;
  if (JSON.stringify(record[argsKey]) !== JSON.stringify(PROBE_ARGS)) return null;
  return { before: written.slice(0, open), argsKey, after: written.slice(close + 1) };
}

/** The character a framed reply's JSON side begins with: the frame's first, or the JSON's `{`. */
export const frameOpening = (frame: JsonFrame): string => (frame.before || '{')[0]!;

/** Whether a reply under `frame` is the framed JSON (not a plain-text answer): it begins as the JSON side does. */
export const isFramedJson = (frame: JsonFrame, text: string): boolean => text.startsWith(frameOpening(frame));

/** The JSON text inside a framed reply, or null when the reply is not framed as `frame` says. */
export function unframe(frame: JsonFrame, text: string): string | null {
  if (!text.startsWith(frame.before) || !text.endsWith(frame.after) || text.length < frame.before.length + frame.after.length) return null;
  return text.slice(frame.before.length, text.length - frame.after.length);
}

/**
 * A JSON schema's GBNF grammar (as node-llama-cpp writes it: `root ::= <json> "\n\n\n\n" [\n]*`, its newlines a stop
 * trigger) written inside the frame: the JSON between `before` and `after`, then only the end of generation; or, with
 * `or_text`, any text that does not open as the JSON side does (an empty reply included). Null when the grammar's root
 * is not written as expected.
 */
export function framedGrammar(gbnf: string, frame: JsonFrame): string | null {
  const lines = gbnf.split('\n');
  const at = lines.findIndex((l) => l.startsWith('root ::= '));
  const root = at < 0 ? undefined : /^root ::= (.*) "\\n\\n\\n\\n" \[\\n\]\*$/.exec(lines[at]!);
  if (!root) return null;
  const literal = (s: string) => (s ? ` ${JSON.stringify(s)}` : '');
  const opening = frameOpening(frame).codePointAt(0)!.toString(16).padStart(4, '0');
  const json = `${literal(frame.before)} ( ${root[1]} )${literal(frame.after)}`.trim();
  lines[at] = frame.or_text ? `root ::= ${json} | framed-text-answer` : `root ::= ${json}`;
  if (frame.or_text) lines.push(`framed-text-answer ::= ( [^\\u${opening}] [^\\x00]* )?`);
  return lines.join('\n');
}
