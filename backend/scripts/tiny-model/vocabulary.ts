/**
 * The tiny model's vocabulary: SentencePiece (llama tokenizer) with byte fallback, a few hundred English
 * words and their prefixes, and a per-token unigram bias the writer bakes into the output matrix.
 */
const SPACE = '\u2581'; // SentencePiece word-boundary marker

/** Common English words, most frequent first (their rank sets the model's unigram preference). */
export const WORDS = (
  'the of and to a in is you that it he was for on are as with his they I at be this have from or one had by ' +
  'word but not what all were we when your can said there use an each which she do how their if will up other ' +
  'about out many then them these so some her would make like him into time has look two more write go see ' +
  'number no way could people my than first water been call who now find long down day did get come made may ' +
  'part over new sound take only little work know place year live me back give most very after thing our just ' +
  'name good sentence man think say great where help through much before line right too mean old any same tell ' +
  'boy follow came want show also around form three small set put end does another well large must big even ' +
  'such because turn here why ask went men read need land different home us move try kind hand picture again ' +
  'change off play spell air away animal house point page letter mother answer found study still learn should ' +
  'world high every near add food between own below country plant last school father keep tree never start city ' +
  'earth eye light thought head under story saw left few while along might close something seem next hard open ' +
  'example begin life always those both paper together got group often run important until children side feet ' +
  'car mile night walk white sea began grow took river four carry state once book hear stop without second later ' +
  'idea enough eat face watch far really almost let above girl sometimes young talk soon list song being leave ' +
  'family hello thanks thank please question model network glob token data compute node reward yes sure today'
).split(' ');
export const CAPITALIZED = ['The', 'I', 'A', 'It', 'This', 'What', 'How', 'Hello', 'You', 'We', 'In', 'Yes', 'Thank', 'Glob'];
const SUFFIXES = ['s', 'ed', 'ing', 'er', 'ly', "'s", "n't"];
/** Role names follow a control token in ChatML (no ▁ before them): whole pieces keep prompts short. */
const ROLE_PIECES = ['user', 'system', 'assistant'];
const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789' + `.,!?;:'"-()/` + SPACE;
export const PUNCT_BIAS: Record<string, number> = { '.': 1.6, ',': 1.2, '?': -0.5, '!': -0.5 };

interface Piece {
  text: string;
  score: number;
  type: number; // 1 normal, 2 unknown, 3 control, 6 byte
  bias: number; // unigram preference in logits
}

/** `extraPieces`: the first n additional filler pieces (▁w0000…), to grow the vocabulary for tests. */
export function buildVocabulary(extraPieces: number): { pieces: Piece[]; eotId: number } {
  const pieces: Piece[] = [
    { text: '<unk>', score: 0, type: 2, bias: -30 },
    { text: '<s>', score: 0, type: 3, bias: -30 },
    { text: '</s>', score: 0, type: 3, bias: -30 },
    { text: '<|im_start|>', score: 0, type: 3, bias: -30 },
    { text: '<|im_end|>', score: 0, type: 3, bias: 0 }, // set below
  ];
  const eotId = 4;
  for (let b = 0; b < 256; b++) {
    const hex = `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
    pieces.push({ text: hex, score: 0, type: 6, bias: b === 0x0a ? -2.5 : -12 });
  }
  const seen = new Set(pieces.map((p) => p.text));
  const add = (text: string, score: number, bias: number): void => {
    if (seen.has(text)) return;
    seen.add(text);
    pieces.push({ text, score, type: 1, bias });
  };
  // Single characters first: every merge in the SentencePiece (bigram, score-ordered) tokenizer starts
  // from them. Then each word with all its ▁-prefixes, so "▁the" is reachable ▁t → ▁th → ▁the.
  for (const ch of CHARS) add(ch, -1000, PUNCT_BIAS[ch] ?? -4);
  const words = [...WORDS.map((w, rank) => ({ w, rank })), ...CAPITALIZED.map((w, i) => ({ w, rank: 40 + i * 8 }))];
  const wordSet = new Set(words.map(({ w }) => SPACE + w));
  for (const { w, rank } of words) {
    const full = SPACE + w;
    for (let len = 2; len <= full.length; len++) {
      const text = full.slice(0, len);
      const isWord = wordSet.has(text);
      add(text, -len * 0.1 - rank * 0.001, isWord ? 2.2 - 0.55 * Math.log(1 + rankOf(words, text)) : -4);
    }
  }
  for (const s of SUFFIXES) {
    for (let len = 2; len <= s.length; len++) add(s.slice(0, len), -500 - len, len === s.length ? -1.5 : -5);
  }
  for (const r of ROLE_PIECES) {
    for (let len = 2; len <= r.length; len++) add(r.slice(0, len), -600 - len, -8);
  }
  for (let i = 0; i < extraPieces; i++) add(`${SPACE}w${i.toString().padStart(4, '0')}`, -900, -6);

  // Probability of ending the answer at each step ≈ 1/160 (answers of ~160 tokens on average): the
  // end token's logit is set against the mass of everything else.
  const mass = pieces.reduce((s, p) => (p.text === '<|im_end|>' ? s : s + Math.exp(p.bias)), 0);
  pieces[eotId]!.bias = Math.log(mass / 159);
  return { pieces, eotId };
}

function rankOf(words: { w: string; rank: number }[], piece: string): number {
  let best = Infinity;
  for (const { w, rank } of words) if (SPACE + w === piece && rank < best) best = rank;
  return best;
}
