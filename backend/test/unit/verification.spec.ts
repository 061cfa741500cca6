import { COMMIT_TOP, decodeCommitment, decodeSteps, encodeCommitment, encodeSteps, type Step } from '@glob/engine/commitment';
import {
  REPEAT_WINDOW,
  SAMPLER_TOP_K,
  sameRecomputation,
  samplingProblem,
  VERIFY_TOP,
  verifyReply,
  verifySteps,
  type Recomputation,
} from '@glob/engine/verification';
import { networkOrigin } from '../../src/modules/nodes/network-origin';

/** A step whose token has log probability `lp`, with candidates 100, 101, … at the given log probabilities. */
const step = (token: number, lp: number, candidates: number[]): Step => ({
  token,
  logprob: lp,
  top: candidates.map((c, i) => [100 + i, c] as [number, number]),
});
/** A flat distribution over `n` candidates (ids 100…), each at log(1/n). */
const flat = (n: number) => Array.from({ length: n }, () => Math.log(1 / n));
const committed = (steps: Step[]): Step[] => steps.map((s) => ({ ...s, top: s.top.slice(0, COMMIT_TOP) }));
const sampling = { temperature: 0.8, top_p: 0.95 };

describe('a reply’s commitment', () => {
  it('round-trips through its base64 records, and refuses what is not whole records of sane values', () => {
    const steps: Step[] = [
      {
        token: 7,
        logprob: -0.5,
        top: [
          [7, -0.5],
          [3, -1.25],
          [9, -2],
          [1, -3.5],
        ],
      },
      { token: 2, logprob: 0, top: [[2, 0]] },
    ];
    const back = decodeCommitment(encodeCommitment(steps))!;
    expect(back.map((s) => s.token)).toEqual([7, 2]);
    expect(back[0]!.top).toEqual(steps[0]!.top);
    expect(back[1]!.top).toEqual([[2, 0]]);
    expect(decodeCommitment(encodeCommitment(steps).slice(0, -8))).toBeNull();
    expect(decodeCommitment('not base64!')).toBeNull();
    // A positive log probability is no probability.
    expect(decodeCommitment(encodeCommitment([{ token: 1, logprob: 0.5, top: [] }]))).toBeNull();
    expect(decodeCommitment('')).toEqual([]);
  });
});

describe('a peer’s recomputation', () => {
  const recomputed = [step(100, -0.1, flat(VERIFY_TOP)), step(103, -0.3, [-0.1, -0.2, -0.25, -0.3])];

  it('round-trips with its VERIFY_TOP candidates a position, and refuses what is not whole records', () => {
    const encoded = encodeSteps(recomputed, VERIFY_TOP);
    expect(decodeSteps(encoded, VERIFY_TOP)).toEqual(
      [
        { ...recomputed[0]!, top: recomputed[0]!.top.map(([id, lp]) => [id, Math.fround(lp)]) },
        { ...recomputed[1]!, top: recomputed[1]!.top.map(([id, lp]) => [id, Math.fround(lp)]) },
      ].map((s) => ({ ...s, logprob: Math.fround(s.logprob) })),
    );
    // A recomputation cut short of a whole record is refused.
    expect(decodeSteps(encodeSteps(recomputed, VERIFY_TOP).slice(0, -8), VERIFY_TOP)).toBeNull();
  });

  it('agrees with another verifier’s only when every number is within tolerance, by rank', () => {
    const other = recomputed.map((s) => ({ ...s, logprob: s.logprob - 0.02, top: s.top.map(([id, lp]) => [id, lp + 0.02] as [number, number]) }));
    expect(sameRecomputation(recomputed, other)).toBe(true);
    // Near-ties swapped on other hardware: same ranks' values, other ids.
    const swapped = recomputed.map((s) => ({ ...s, top: s.top.map(([, lp], j) => [500 + j, lp] as [number, number]) }));
    expect(sameRecomputation(recomputed, swapped)).toBe(true);
    const shifted = recomputed.map((s, i) =>
      i === 1 ? { ...s, top: s.top.map(([id, lp], j) => [id, j === 3 ? lp - 1 : lp] as [number, number]) } : s,
    );
    expect(sameRecomputation(recomputed, shifted)).toBe(false);
    expect(sameRecomputation(recomputed, recomputed.slice(0, 1))).toBe(false);
    expect(sameRecomputation(recomputed, [recomputed[0]!, { ...recomputed[1]!, token: 101 }])).toBe(false);
  });
});

describe('a node’s network origin', () => {
  it('is its IPv4 address’s /24 or its IPv6 address’s /64, whatever the notation', () => {
    expect(networkOrigin('203.0.113.7')).toBe('203.0.113.0/24');
    expect(networkOrigin('::ffff:203.0.113.200')).toBe('203.0.113.0/24');
    expect(networkOrigin('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(networkOrigin('2001:0db8:0000:0001:ffff::1')).toBe('2001:db8:0:1::/64');
    expect(networkOrigin('::1')).toBe('0:0:0:0::/64');
    expect(networkOrigin('203.0.114.7')).not.toBe(networkOrigin('203.0.113.7'));
    expect(networkOrigin('not an address')).toBeNull();
    expect(networkOrigin(undefined)).toBeNull();
  });
});

describe('whether a token could have been sampled', () => {
  it('a token among the top 40 and inside top_p passes; one outside either fails', () => {
    const lps = flat(200);
    expect(samplingProblem(step(120, lps[20]!, lps), new Set(), sampling)).toBeNull();
    // 50 distinct candidates are as likely but clearly likelier is what counts: make the first 50 likelier.
    const peaked = lps.map((lp, i) => (i < 50 ? lp + 2 : lp));
    expect(samplingProblem(step(160, peaked[60]!, peaked), new Set(), sampling)).toMatch(/outside the 40 likeliest/);
    // One candidate holds nearly all the mass: under top_p 0.95 nothing else is ever sampled.
    const sharp = [-0.01, ...flat(120).map((lp) => lp - 6)];
    expect(samplingProblem(step(105, sharp[5]!, sharp), new Set(), sampling)).toMatch(/past top_p/);
    expect(samplingProblem(step(105, sharp[5]!, sharp), new Set(), { temperature: 1, top_p: 1 })).toBeNull();
  });

  it('with min_p, a token less likely than that share of the likeliest fails; one above it, or a penalized favourite, passes', () => {
    // Candidates 100 (p 0.5), 101 (p 0.2), 102 (p 0.04): min_p 0.1 leaves out anything below 0.05.
    const lps = [Math.log(0.5), Math.log(0.2), Math.log(0.04)];
    const minP = { temperature: 1, top_p: 1, min_p: 0.1 };
    expect(samplingProblem(step(101, lps[1]!, lps), new Set(), minP)).toBeNull();
    expect(samplingProblem(step(102, lps[2]!, lps), new Set(), minP)).toMatch(/less likely than min_p 0.1/);
    expect(samplingProblem(step(102, lps[2]!, lps), new Set(), { ...minP, min_p: 0 })).toBeNull();
    // The favourite was seen in the window: a repetition penalty may have pushed it below the token, which then passes.
    expect(samplingProblem(step(102, lps[2]!, lps), new Set([100, 101]), minP)).toBeNull();
  });

  it('at temperature 0 only the likeliest token passes (within rounding)', () => {
    const lps = [-0.5, -0.5 - 0.01, -3, -4];
    expect(samplingProblem(step(100, lps[0]!, lps), new Set(), { temperature: 0, top_p: 1 })).toBeNull();
    expect(samplingProblem(step(101, lps[1]!, lps), new Set(), { temperature: 0, top_p: 1 })).toBeNull();
    expect(samplingProblem(step(102, lps[2]!, lps), new Set(), { temperature: 0, top_p: 1 })).toMatch(/not the likeliest/);
  });

  it('tokens a repetition penalty may have pushed down (seen in the last 64) do not count against it', () => {
    const lps = flat(200).map((lp, i) => (i < 50 ? lp + 2 : lp));
    const seen = new Set(Array.from({ length: 20 }, (_, i) => 100 + i));
    expect(samplingProblem(step(160, lps[60]!, lps), seen, { temperature: 1, top_p: 1 })).toBeNull();
    expect(samplingProblem(step(160, lps[60]!, lps), new Set(), { temperature: 1, top_p: 1 })).toMatch(/outside/);
    expect(SAMPLER_TOP_K + REPEAT_WINDOW).toBe(104);
  });
});

describe('the verdict on a reply', () => {
  // The model's recomputation: tokens 100, 101, then the end (id 2); each likely.
  const lps = [-0.3, -1.5, -2, -3, -4];
  const steps = [
    step(100, lps[0]!, lps),
    step(101, lps[1]!, lps),
    {
      token: 2,
      logprob: -0.2,
      top: [
        [2, -0.2],
        [100, -1.8],
      ] as Array<[number, number]>,
    },
  ];
  const recomputed: Recomputation = { steps, promptTail: [], text: 'Hi there', eog: [false, false, true] };
  const claim = { text: 'Hi there', stopReason: 'stop' as const, sampling: { ...sampling, max_tokens: 8 } };

  it('an honest commitment of the whole reply passes', () => {
    expect(verifyReply(committed(steps), recomputed, claim)).toEqual({ passed: true, checked: 3 });
  });

  it('a missing commitment, other numbers, a cut text, a false end or a reply past its cap fails', () => {
    expect(verifyReply(null, recomputed, claim).passed).toBe(false);
    const lied = committed(steps).map((s, i) => (i === 1 ? { ...s, logprob: s.logprob + 0.5 } : s));
    expect(verifyReply(lied, recomputed, claim)).toMatchObject({ passed: false, why: /token 1: its committed log probabilities/ });
    expect(verifyReply(committed(steps), recomputed, { ...claim, text: 'Hello there' }).why).toMatch(/not the text/);
    expect(verifyReply(committed(steps), recomputed, { ...claim, stopReason: 'length' }).why).toMatch(/"length"/);
    expect(verifyReply(committed(steps), recomputed, { ...claim, sampling: { ...claim.sampling, max_tokens: 1 } }).why).toMatch(/past its cap/);
    const early = { ...recomputed, eog: [false, true, false] };
    expect(verifyReply(committed(steps), early, claim).why).toMatch(/after the end of generation/);
    // Text shown, then more tokens no stop sequence explains.
    expect(verifyReply(committed(steps), recomputed, { ...claim, text: 'Hi' }).passed).toBe(false);
    expect(
      verifyReply(
        committed(steps),
        { ...recomputed, eog: [false, false, false] },
        { ...claim, text: 'Hi', sampling: { ...claim.sampling, stop: [' there'] } },
      ).passed,
    ).toBe(true);
  });

  it('a commitment of fewer steps than tokens fails whatever they say', () => {
    expect(verifyReply(committed(steps).slice(1), recomputed, claim).passed).toBe(false);
  });
});

describe('JSON replies under a grammar', () => {
  // Tokens 1..n with texts; the candidates at every step are 100.. (free text, likelier) and the token itself.
  const pieces: Record<number, string> = { 1: '{"', 2: 'answer', 3: '":"', 4: 'evil', 5: '"}' };
  const flat40 = Array.from({ length: 60 }, (_, i) => [100 + i, -1 - i * 0.01] as [number, number]);
  for (let i = 0; i < 60; i++) pieces[100 + i] = `w${i}`;
  const at = (token: number): Step => ({ token, logprob: -5, top: [...flat40, [token, -5]] });
  const steps = [at(1), at(2), at(3), at(4), at(5)];
  const sampling = { temperature: 0.8, top_p: 0.95, json_schema: {} };

  it('a key is the grammar’s literal, never judged; a value string’s contents are, when the schema’s strings are free', () => {
    expect(verifySteps(committed(steps), steps, [], { ...sampling, freeStrings: false }, pieces).passed).toBe(true);
    // Only token 4 ("evil", inside the value) is judged: token 2 ("answer", the key) is as unlikely and passes.
    expect(verifySteps(committed(steps), steps, [], { ...sampling, freeStrings: true }, pieces)).toMatchObject({
      passed: false,
      why: expect.stringMatching(/^token 3: inside a JSON string/),
    });
  });

  it('likelier tokens the grammar may forbid inside a string (a quote, a backslash) do not count against the token', () => {
    const quoted: Record<number, string> = { ...pieces };
    for (let i = 0; i < 60; i++) quoted[100 + i] = `"${i}`;
    expect(verifySteps(committed(steps), steps, [], { ...sampling, freeStrings: true }, quoted).passed).toBe(true);
  });
});

describe('tools replies in a family’s frame', () => {
  // Candidates 100.. are likelier than every token here; 100 opens a call ("<"), the others are words.
  const pieces: Record<number, string> = { 1: 'Sun', 2: 'ny', 3: '<tool_call>', 4: '\n{"', 5: 'name' };
  const likelier = Array.from({ length: 60 }, (_, i) => [100 + i, -1 - i * 0.01] as [number, number]);
  for (let i = 0; i < 60; i++) pieces[100 + i] = i === 0 ? '<' : `w${i}`;
  const at = (token: number, lp = -5): Step => ({ token, logprob: lp, top: [...likelier, [token, lp]] });
  const frame = { before: '<tool_call>\n', after: '\n</tool_call>', or_text: true };
  const tools = { temperature: 0.8, top_p: 0.95, json_schema: {}, json_frame: frame, freeStrings: true };

  it('a plain-text answer is judged as free text: an unlikely word fails, as it would with no grammar', () => {
    const steps = [at(1), at(2)];
    expect(verifySteps(committed(steps), steps, [], tools, pieces)).toMatchObject({
      passed: false,
      why: expect.stringMatching(/^token 0: it is outside/),
    });
    // The same tokens as likely as the rest pass.
    const likely = [at(1, -1), at(2, -1)];
    expect(verifySteps(committed(likely), likely, [], tools, pieces).passed).toBe(true);
  });

  it('its first token is judged among those the grammar allowed there: a likelier token opening a call does not count', () => {
    // Only candidate 100 ("<") is likelier than token 1 by more than the margin at the first step: the grammar forbade it.
    const first: Step = { token: 1, logprob: -1.5, top: [[100, -0.2], [1, -1.5], ...likelier.slice(1).map(([id]) => [id, -3] as [number, number])] };
    expect(verifySteps(committed([first]), [first], [], tools, pieces).passed).toBe(true);
    expect(verifySteps(committed([first]), [first], [], { ...tools, json_frame: { ...frame, or_text: false } }, pieces).passed).toBe(true);
    // Without the frame's rule, as free text, "<" would count against it at temperature 0.
    expect(verifySteps(committed([first]), [first], [], { ...tools, temperature: 0 }, pieces).passed).toBe(true);
    expect(verifySteps(committed([first]), [first], [], { temperature: 0, top_p: 0.95 }, pieces).passed).toBe(false);
  });

  it('a framed call is judged as JSON under its grammar: the frame and the keys are literals, never judged', () => {
    const steps = [at(3), at(4), at(5)];
    expect(verifySteps(committed(steps), steps, [], tools, pieces).passed).toBe(true);
  });
});
