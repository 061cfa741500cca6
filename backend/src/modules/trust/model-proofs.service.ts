import { Injectable } from '@nestjs/common';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import type { Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { CatalogService } from '../catalog/catalog.service';
import { hashRanges } from '@glob/engine/file-proof';
import { PEER_ACTIVE_SECONDS } from './spot-check-verdict';
import { SpotChecksService, unfitCommitment } from './spot-checks.service';
import { SpotChecksRepository, type ChallengeBody, type ModelProofRow } from './spot-checks.repository';

/** Byte ranges a challenge asks for, and how long each is. */
const RANGES = 4;
const RANGE_BYTES = 4096;
/** Tokens of the challenge's generation, at temperature 0 with a seed, and the random words of its prompt. */
const PROBE_TOKENS = 32;
const PROMPT_WORDS = 96;
/**
 * How long a challenge's answer may take, from its first delivery: PROOF_BASE_SECONDS for the round trip and a busy
 * node, plus the prompt and the reply at the slowest speed the network accepts, MIN_WEIGHT_BYTES_PER_SECOND of the
 * model's weights read per token (a decoded token reads them all; a prompt's tokens are read in batches, so ~20 × less
 * each). A node that relays its challenges elsewhere, or runs the model slower than any usable machine, misses it.
 */
const PROOF_BASE_SECONDS = 20;
const MIN_WEIGHT_BYTES_PER_SECOND = 1e9;
const PROMPT_BATCH_SPEEDUP = 20;
/** A challenge not answered within this long is replaced by a new one; so is one its trusted generator did not judge. */
const CHALLENGE_TTL_SECONDS = 600;
const JUDGE_TTL_SECONDS = 120;
/** Words the challenge's prompt is drawn from, so no answer can be prepared in advance. */
const WORDS = (
  'river city mountain lantern harbor winter garden engine silver forest letter morning bridge market thunder ' +
  'island window candle meadow compass orchard whisper canyon copper festival glacier library voyage pepper ' +
  'shadow meteor puzzle velvet anchor beacon cactus dolphin ember falcon granite hollow ivory jasmine kettle'
).split(' ');

/**
 * A node's model counts only once the node proved it runs it: it answers a challenge with the model's seeded reply to
 * a long random prompt and its commitment, in the time the model's size allows (answerSeconds), verified by
 * recomputation by a trusted generator when one serves the model, otherwise by a node of another owner and network that
 * proved it (PeerReplaysService). The SHA-256 of a nonce and random byte ranges of the catalog's file is only a cheap
 * first check (the file is public); the first node of a model, with nobody to check it, is proven by its answer alone.
 */
@Injectable()
export class ModelProofsService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly transactions: Transactions,
    private readonly checks: SpotChecksRepository,
    private readonly spotChecks: SpotChecksService,
  ) {}

  /** The platform can challenge a node only for models whose file it holds itself. */
  private fileOf(modelId: string): string | null {
    const path = this.catalog.get(modelId)?.path;
    return path && existsSync(path) ? path : null;
  }

  /**
   * Takes the node's answers, then answers which of the declared models are proven and the challenges still open
   * for the others (new ones for models without a live challenge).
   */
  async onHeartbeat(
    nodeId: string,
    declared: string[],
    proofs: Schemas['ModelProof'][],
  ): Promise<{ proven: string[]; challenges: Schemas['ModelChallenge'][] }> {
    for (const p of proofs) await this.answer(nodeId, p);
    await this.checks.expire(nodeId, CHALLENGE_TTL_SECONDS, JUDGE_TTL_SECONDS);
    const live = new Map((await this.checks.liveProofs(nodeId)).map((p) => [p.model_id, p]));
    for (const modelId of declared) {
      if (live.has(modelId)) continue;
      const file = this.fileOf(modelId);
      const issued = file ? await this.checks.issue(nodeId, modelId, this.challenge(file)) : undefined;
      if (issued) live.set(modelId, issued);
    }
    return {
      proven: declared.filter((m) => live.get(m)?.status === 'proven'),
      challenges: declared.flatMap((m) => {
        const p = live.get(m);
        return p?.status === 'issued' ? [toChallenge(p)] : [];
      }),
    };
  }

  /** node id → the models it has proven, and when. */
  async provenBy(nodeIds: string[]): Promise<Map<string, Schemas['ProvenModel'][]>> {
    const rows = nodeIds.length ? await this.checks.proven(nodeIds) : new Map<string, Array<{ model_id: string; proven_at: Date }>>();
    return new Map(nodeIds.map((id) => [id, (rows.get(id) ?? []).map((r) => ({ model_id: r.model_id, proven_at: r.proven_at.toISOString() }))]));
  }

  private challenge(file: string): ChallengeBody {
    const size = statSync(file).size;
    const length = Math.min(RANGE_BYTES, size);
    const words = Array.from({ length: PROMPT_WORDS }, () => WORDS[randomInt(WORDS.length)]!).join(' ');
    return {
      nonce: randomBytes(16).toString('hex'),
      ranges: Array.from({ length: RANGES }, () => ({ offset: randomInt(size - length + 1), length })),
      messages: [{ role: 'user', content: `Write about: ${words}` }],
      params: { temperature: 0, max_tokens: PROBE_TOKENS, top_p: 1, seed: randomInt(2 ** 31) },
    };
  }

  /**
   * How long a challenge's answer may take from its delivery, by the model's size: the prompt (counted generously, 4
   * tokens a word) and the reply at the slowest speed the network accepts.
   */
  private answerSeconds(file: string): number {
    const perToken = statSync(file).size / MIN_WEIGHT_BYTES_PER_SECOND;
    return PROOF_BASE_SECONDS + (PROMPT_WORDS * 4 * perToken) / PROMPT_BATCH_SPEEDUP + PROBE_TOKENS * perToken;
  }

  /**
   * A node's answer: its timing and file ranges are checked here (an answer too late is refused, without penalty: a
   * fresh challenge follows); its generation by a trusted generator or a peer.
   */
  private async answer(nodeId: string, proof: Schemas['ModelProof']): Promise<void> {
    const toCheck = await this.transactions.run(async (tx) => {
      const row = await this.checks.lockProof(proof.challenge_id, 'issued', tx);
      if (!row || row.node_id !== nodeId) return null;
      const file = this.fileOf(row.model_id);
      const took = (Date.now() - row.issued_at.getTime()) / 1000;
      if (file && took > this.answerSeconds(file)) {
        await this.checks.failProof(
          row.id,
          `time: answered after ${took.toFixed(1)} s, the model's size allows ${this.answerSeconds(file).toFixed(1)} s`,
          tx,
        );
        return null;
      }
      const expected = file ? await hashRanges(file, row.challenge.nonce, row.challenge.ranges) : null;
      if (!expected || expected.join() !== proof.range_hashes.join()) {
        await this.checks.failProof(row.id, "file: the byte ranges do not match the catalog's file", tx);
        return null;
      }
      if (await this.spotChecks.trusted(row.model_id)) {
        await this.checks.checking(row.id, proof.text, tx);
        return { row, by: 'trusted' as const };
      }
      // Without a trusted generator, a node of another owner and network that proved the model verifies the generation
      // by recomputation; the first node of a model has nobody to be checked against, and its replies are checked once
      // someone is.
      if (!(await this.checks.peerAvailable(row.model_id, [nodeId], PEER_ACTIVE_SECONDS, tx))) {
        await this.checks.prove(row.id, 'unchecked', proof.text, tx);
        return null;
      }
      await this.checks.checking(row.id, proof.text, tx);
      const unfit = unfitCommitment(proof.commitment, row.challenge.params.max_tokens);
      if (unfit) return { row, by: 'unfit' as const, unfit };
      const { messages, params } = row.challenge;
      const claim = { commitment: proof.commitment!, text: proof.text, stop_reason: 'either' as const };
      await this.checks.addReplay({ proofId: row.id }, [nodeId], { model_id: row.model_id, messages, params, claim }, tx);
      return null;
    });
    if (!toCheck) return;
    const { row } = toCheck;
    if (toCheck.by === 'unfit') await this.spotChecks.concludeProof(row.id, () => toCheck.unfit);
    else await this.spotChecks.checkProof(row.id, row.model_id, row.challenge, proof.text, proof.commitment ?? null);
  }
}

const toChallenge = (p: ModelProofRow): Schemas['ModelChallenge'] => ({ challenge_id: p.id, model_id: p.model_id, ...p.challenge });
