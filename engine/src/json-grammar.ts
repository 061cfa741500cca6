/**
 * node-llama-cpp turns a JSON schema into a GBNF grammar whose number rules allow an exponent of up to 16 digits, for
 * `integer` as well: `2E-4` and `7e606` fit its grammar, yet one parses to a fraction and the other to Infinity, and
 * neither is a JSON-schema integer (nor is Infinity a number). A near-random model writes such exponents in a few
 * percent of its numbers. Integers are kept to digits alone and exponents to two digits, so that whatever the grammar
 * lets through parses to a value its schema accepts.
 */
const EXPONENT = ' ([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?';
const SHORT_EXPONENT = ' ([eE] [-+]? [0-9]{1,2})?';
const RULES: Record<string, string> = {
  'integer-number-rule': '',
  'fractional-number-rule': SHORT_EXPONENT,
};

/** The grammar with bounded number rules; unchanged when its rules are not written the way this expects. */
export function boundNumberRules(gbnf: string): string {
  return gbnf
    .split('\n')
    .map((line) => {
      const name = line.slice(0, line.indexOf(' ::= '));
      const exponent = RULES[name];
      return exponent === undefined || !line.endsWith(EXPONENT) ? line : line.slice(0, -EXPONENT.length) + exponent;
    })
    .join('\n');
}
