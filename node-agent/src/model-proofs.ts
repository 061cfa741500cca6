/**
 * Answers to the platform's model challenges: a model's jobs are offered to the node only once it proved it runs
 * the model. Each answer is sent with the next heartbeat.
 */
import type { Schemas } from './contract';
import { hashRanges } from '@glob/engine/file-proof';
import { encodeCommitment } from '@glob/engine/commitment';
import { challengeRequest } from './engine-requests';
import type { Log } from './logging';
import type { Serving } from './serving';
import { AgentError } from './session';

type ModelChallenge = Schemas['ModelChallenge'];

export interface ModelProofsDeps {
  log: Log;
  serving: Serving;
  /** A heartbeat now, carrying the answer just made. */
  report: () => Promise<void>;
  /** An AgentError while answering (revoked): the agent stops. */
  fail: (err: unknown) => void;
}

export class ModelProofs {
  /** The answers not sent yet, and the challenges being answered. */
  private proofs: Schemas['ModelProof'][] = [];
  private readonly proving = new Set<string>();

  constructor(private readonly deps: ModelProofsDeps) {}

  get waiting(): boolean {
    return this.proofs.length > 0;
  }

  /** The answers not sent yet, for a heartbeat: each is sent once. */
  take(): Schemas['ModelProof'][] {
    return this.proofs.splice(0);
  }

  /**
   * The platform offers a model's jobs only once the node proved it runs it: the model's reply to the challenge's prompt
   * and its commitment, and the SHA-256 of the challenge's nonce and byte ranges of the model's file, answered at once
   * (the platform times it).
   */
  prove(c: ModelChallenge): void {
    const { log, serving } = this.deps;
    const local = serving.models.find((m) => m.id === c.model_id);
    const generator = serving.generatorFor(c.model_id);
    if (this.proving.has(c.challenge_id) || !local || !generator) return;
    this.proving.add(c.challenge_id);
    const answer = async () => {
      const rangeHashes = await hashRanges(local.path, c.nonce, c.ranges);
      const { text, commitment } = await generator.generate(challengeRequest(c));
      this.proofs.push({
        challenge_id: c.challenge_id,
        range_hashes: rangeHashes,
        text,
        ...(commitment ? { commitment: encodeCommitment(commitment) } : {}),
      });
      log(`Answered the platform's challenge for ${c.model_id}`);
      await this.deps.report();
    };
    answer()
      .catch((err: unknown) => {
        if (err instanceof AgentError) return this.deps.fail(err);
        log(`Could not answer the challenge for ${c.model_id}: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => this.proving.delete(c.challenge_id));
  }
}
