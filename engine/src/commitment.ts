/**
 * What a generator commits to with every reply: per generated token (the end-of-generation token included when the
 * model ended the reply with one), the token's id, its log probability at temperature 1 and the COMMIT_TOP likeliest
 * tokens at that step. A verifier recomputes the same values in one teacher-forced pass over prompt + tokens and
 * compares (see verification.ts), so a node cannot send text the model did not give without the numbers betraying it.
 */

/** Candidates committed per step. */
export const COMMIT_TOP = 4;

/** One step of a generation: the token chosen, its log probability and the likeliest tokens, most likely first. */
export interface Step {
  token: number;
  logprob: number;
  top: Array<[token: number, logprob: number]>;
}

/** Bytes of one encoded step with `top` candidates: the token (int32), its log probability (float32), then `top` pairs of the same. */
const stepBytes = (top: number) => 8 + 8 * top;

/** Steps as the done event carries them (COMMIT_TOP candidates each). */
export const encodeCommitment = (steps: readonly Step[]): string => encodeSteps(steps, COMMIT_TOP);

/** The steps of an encoded commitment, or null when it is not whole records of sane values. */
export const decodeCommitment = (encoded: string): Step[] | null => decodeSteps(encoded, COMMIT_TOP);

/**
 * Steps as little-endian binary records of `top` candidates each, base64: a commitment, or a peer's recomputation
 * (VERIFY_TOP candidates). A position with fewer candidates (a vocabulary that small) is padded with token -1.
 */
export function encodeSteps(steps: readonly Step[], top: number): string {
  const bytes = stepBytes(top);
  const buf = Buffer.alloc(steps.length * bytes);
  steps.forEach((s, i) => {
    let at = i * bytes;
    buf.writeInt32LE(s.token, at);
    buf.writeFloatLE(s.logprob, at + 4);
    at += 8;
    for (let j = 0; j < top; j++, at += 8) {
      const c = s.top[j];
      buf.writeInt32LE(c ? c[0] : -1, at);
      buf.writeFloatLE(c ? c[1] : 0, at + 4);
    }
  });
  return buf.toString('base64');
}

/** Steps encoded with `top` candidates each, or null when they are not whole records of sane values. */
export function decodeSteps(encoded: string, top: number): Step[] | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return null;
  const buf = Buffer.from(encoded, 'base64');
  if (buf.length % stepBytes(top) !== 0) return null;
  const steps: Step[] = [];
  for (let at = 0; at < buf.length;) {
    const token = buf.readInt32LE(at);
    const logprob = buf.readFloatLE(at + 4);
    if (token < 0 || !(logprob <= 0)) return null;
    at += 8;
    const candidates: Step['top'] = [];
    for (let j = 0; j < top; j++, at += 8) {
      const id = buf.readInt32LE(at);
      const lp = buf.readFloatLE(at + 4);
      if (id < 0) continue;
      if (!(lp <= 0)) return null;
      candidates.push([id, lp]);
    }
    steps.push({ token, logprob, top: candidates });
  }
  return steps;
}
