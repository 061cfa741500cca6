import { alignLogprobs, cutLogprobs, logprobsProblem, tokenPieces, type TokenLogprob } from '@glob/engine/logprobs';

const bytes = (s: string) => Array.from(Buffer.from(s, 'utf8'));
const tok = (token: string, logprob: number, top: Array<[string, number]> = []): TokenLogprob => ({
  token,
  logprob,
  bytes: bytes(token),
  top_logprobs: top.map(([t, l]) => ({ token: t, logprob: l, bytes: bytes(t) })),
});

describe('token logprobs', () => {
  it('tokenPieces gives a character split across tokens to the token that ends it', () => {
    // "é" is two bytes: token 2 is its first, token 3 its second; decoding a half gives U+FFFD.
    const text: Record<string, string> = { '1': 'a', '2': '\uFFFD', '2,3': 'é', '4': 'b' };
    expect(tokenPieces([1, 2, 3, 4], (ids) => text[ids.join()]!)).toEqual(['a', '', 'é', 'b']);
  });

  it('alignLogprobs makes the texts join to the reply, whatever a tokenizer decodes apart', () => {
    const scored = [
      { piece: 'Hi', logprob: -0.1, top: [{ piece: 'Hi', logprob: -0.1 }] },
      { piece: ' there', logprob: -0.5, top: [{ piece: '!', logprob: -0.2 }] },
      { piece: '??', logprob: -1, top: [{ piece: '.', logprob: -0.3 }] },
    ];
    const lp = alignLogprobs('Hi there.', scored);
    expect(lp.map((t) => t.token)).toEqual(['Hi', ' there', '.']);
    expect(lp[1]).toEqual(tok(' there', -0.5, [['!', -0.2]]));
    expect(logprobsProblem('Hi there.', lp, 1)).toBeNull();
  });

  it('cutLogprobs keeps the tokens of the text before a stop sequence, the last one cut to fit', () => {
    const lp = [tok('Hello', -0.1), tok(' wor', -0.2), tok('ld', -0.3)];
    expect(cutLogprobs(lp, 8).map((t) => t.token)).toEqual(['Hello', ' wo']);
    expect(cutLogprobs(lp, 8)[1]!.bytes).toEqual(bytes(' wo'));
    expect(cutLogprobs(lp, 5)).toEqual([lp[0]]);
    expect(cutLogprobs(lp, 11)).toEqual(lp);
  });

  it('logprobsProblem names what a node got wrong', () => {
    const good = [
      tok('a', -0.1, [
        ['a', -0.1],
        ['b', -2],
      ]),
      tok('c', -3, [
        ['d', -0.5],
        ['c', -3],
      ]),
    ];
    expect(logprobsProblem('ac', good, 2)).toBeNull();
    expect(logprobsProblem('ab', good, 2)).toBe('the tokens are not the text');
    expect(logprobsProblem('ac', good, 1)).toBe('token 0 has 2 candidates, not 1');
    expect(
      logprobsProblem(
        'ac',
        [
          tok('a', 0.5, [
            ['a', 0.5],
            ['b', -1],
          ]),
          good[1]!,
        ],
        2,
      ),
    ).toBe('token 0 has log probability 0.5');
    expect(
      logprobsProblem(
        'ac',
        [
          good[0]!,
          tok('c', -3, [
            ['c', -3],
            ['d', -0.5],
          ]),
        ],
        2,
      ),
    ).toBe("token 1's candidates are not most likely first");
    expect(
      logprobsProblem(
        'ac',
        [
          good[0]!,
          tok('c', -0.2, [
            ['d', -0.5],
            ['c', -3],
          ]),
        ],
        2,
      ),
    ).toBe('token 1 is likelier than its most likely candidate');
    expect(logprobsProblem('ac', [{ ...good[0]!, bytes: [1] }, good[1]!], 2)).toBe("token 0's bytes are not its text");
    expect(
      logprobsProblem(
        'ac',
        [
          good[0]!,
          tok('c', Number.NaN, [
            ['d', -0.5],
            ['c', -3],
          ]),
        ],
        2,
      ),
    ).toBe('token 1 has log probability NaN');
  });
});
