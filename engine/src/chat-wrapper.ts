import { createRequire } from 'node:module';
import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { HISTORY_FUNCTIONS } from './chat-history';
import { CHATML_TEMPLATE } from './chatml';

/**
 * The chat wrapper every generator and the platform's token counter format a model's prompts with, so that a prompt is
 * what the model's family renders (`apply_chat_template` with its own Jinja template and tokenizer):
 * - the plain ChatML template is known (skipping node-llama-cpp's Jinja equivalence checks, 0.3 s idle and 2+ s on a
 *   busy machine);
 * - any other template the model carries is rendered as it is. node-llama-cpp's "equivalent" built-in wrappers are
 *   not: for Llama 3.2's template it picks the Llama 3.1 wrapper, which writes a "# Tool Instructions" block into every
 *   system turn that the template never writes;
 * - two turns of one role in a row stay two turns (node-llama-cpp joins them into one by default; the template renders
 *   each);
 * - what the template does to the whitespace around a turn's text is done to the text first (turnTrims): node-llama-cpp
 *   hands the template a placeholder for each turn's text (so that text spelling a control token stays text), and a
 *   placeholder has no whitespace for Llama 3's `content | trim` to strip;
 * - a reply starts with whatever the model generated: node-llama-cpp's default for templates drops a reply's leading
 *   whitespace and reports the rest tokenized again (" Glob" as "G" + "lob"), tokens the model never sampled, which a
 *   verifier recomputing the reply would reject;
 * - turns are normalized as the family's tokenizer normalizes text (textNormalizerFor).
 * A model with no template: node-llama-cpp's choice.
 */
export function chatWrapperFor(nlc: typeof Nlc, model: Nlc.LlamaModel): Nlc.ChatWrapper {
  const template = model.fileInfo.metadata.tokenizer?.chat_template;
  const normalize = textNormalizerFor(model);
  if (template === CHATML_TEMPLATE) return preparingTurns(nlc.resolveChatWrapper(model, { type: 'chatML' }), normalize, NO_TRIMS);
  if (typeof template !== 'string' || template.length === 0) return preparingTurns(nlc.resolveChatWrapper(model), normalize, NO_TRIMS);
  const wrapper = nlc.resolveChatWrapper(model, {
    type: 'jinjaTemplate',
    customWrapperSettings: { jinjaTemplate: { template, joinAdjacentMessagesOfTheSameType: false, trimLeadingWhitespaceInResponses: false } },
  });
  return preparingTurns(wrapper, normalize, wrapper instanceof nlc.JinjaTemplateChatWrapper ? turnTrims(template) : NO_TRIMS);
}

/**
 * Pre-tokenizers (GGUF `tokenizer.ggml.pre`) whose families' Hugging Face tokenizers normalize text to NFC before
 * splitting it: Qwen 2.5's tokenizer.json says so (and Qwen 2's and 3's, which share its tokenizer). llama.cpp's byte-level
 * BPE has no normalizer (a GGUF file does not record one), so a decomposed "é" (e + U+0301) would be tokenized as its
 * bytes, not as the family does.
 */
const NFC_PRE_TOKENIZERS: ReadonlySet<string> = new Set(['qwen2']);

/**
 * What a text goes through before the model's tokenizer splits it, as its family's tokenizer does (NFC for Qwen's):
 * every text the engine or the platform's counter tokenizes (a turn, a raw prompt, a text to count) goes through it.
 */
export function textNormalizerFor(model: Nlc.LlamaModel): (text: string) => string {
  const pre = model.fileInfo.metadata.tokenizer?.ggml?.pre;
  return typeof pre === 'string' && NFC_PRE_TOKENIZERS.has(pre) ? (text) => text.normalize('NFC') : (text) => text;
}

type Role = 'system' | 'user' | 'model';
/** Per role: whether the template strips the whitespace at the start and at the end of that role's text. */
type Trims = Record<Role, { start: boolean; end: boolean }>;
const KEEP = { start: false, end: false };
const NO_TRIMS: Trims = { system: KEEP, user: KEEP, model: KEEP };

/** Whitespace around a probe turn's text: characters no template writes beside a turn itself. */
const PROBE_PAD = '\u2002\n\u2002';

/**
 * What the template does to the whitespace around each role's text, measured by rendering it (with the Jinja engine
 * node-llama-cpp renders it with) on a conversation whose texts are padded with whitespace: a side whose padding is gone
 * is trimmed. A template that refuses a system turn is probed without one; one that refuses both trims nothing.
 */
export function turnTrims(template: string): Trims {
  const { Template } = createRequire(require.resolve('node-llama-cpp'))('@huggingface/jinja') as typeof import('@huggingface/jinja');
  const text = (role: string) => `PROBE-${role.toUpperCase()}-TEXT`;
  const turns = (['system', 'user', 'assistant', 'user'] as const).map((role, i) => ({ role, content: `${PROBE_PAD}${text(role)}${i}${PROBE_PAD}` }));
  const render = (messages: typeof turns) => {
    try {
      return new Template(template).render({ messages, add_generation_prompt: true, bos_token: '', eos_token: '' });
    } catch {
      return null;
    }
  };
  const rendered = render(turns) ?? render(turns.slice(1));
  if (rendered === null) return NO_TRIMS;
  const trims = (role: string, i: number) => {
    const core = `${text(role)}${i}`;
    if (!rendered.includes(core)) return KEEP;
    return { start: !rendered.includes(`${PROBE_PAD}${core}`), end: !rendered.includes(`${core}${PROBE_PAD}`) };
  };
  return { system: trims('system', 0), user: trims('user', 1), model: trims('assistant', 2) };
}

/**
 * The wrapper, its turns' texts normalized and trimmed as the template would before it renders them (`trims`), and
 * the functions a history carries (chat-history.ts) given to the template. The reply being generated (a last model
 * turn) is left as it is: the model continues it as it stands.
 */
function preparingTurns(wrapper: Nlc.ChatWrapper, normalize: (text: string) => string, trims: Trims): Nlc.ChatWrapper {
  const prepare = (text: string, role: Role) => {
    const t = trims[role];
    const n = normalize(text);
    return t.start && t.end ? n.trim() : t.start ? n.trimStart() : t.end ? n.trimEnd() : n;
  };
  const response = (item: Nlc.ChatModelResponse['response'][number]) =>
    item && typeof item === 'object' && item.type === 'functionCall' && typeof item.result === 'string'
      ? { ...item, result: normalize(item.result) }
      : item;
  const render = wrapper.generateContextState.bind(wrapper);
  wrapper.generateContextState = (state) => {
    const { [HISTORY_FUNCTIONS]: functions, ...first } = (state.chatHistory[0] ?? {}) as Nlc.ChatHistoryItem & {
      [HISTORY_FUNCTIONS]?: Nlc.ChatModelFunctions;
    };
    const history = state.chatHistory.length ? [first as Nlc.ChatHistoryItem, ...state.chatHistory.slice(1)] : state.chatHistory;
    return render({
      ...state,
      ...(functions && !state.availableFunctions ? { availableFunctions: functions } : {}),
      chatHistory: history.map((item, i, all): Nlc.ChatHistoryItem => {
        if (item.type === 'user') return { ...item, text: prepare(item.text, 'user') };
        if (item.type === 'system') return typeof item.text === 'string' ? { ...item, text: prepare(item.text, 'system') } : item;
        if (i === all.length - 1 || item.response.length !== 1 || typeof item.response[0] !== 'string')
          return { ...item, response: item.response.map(response) };
        return { ...item, response: [prepare(item.response[0], 'model')] };
      }),
    });
  };
  return wrapper;
}
