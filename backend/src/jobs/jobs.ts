import type { ChatTurn } from '@glob/engine/chat-history';
import type { TokenLogprob } from '@glob/engine/logprobs';
import type { ClaimedEnd } from '@glob/engine/verification';
import type { Sampling } from '@glob/engine/sampling';
/**
 * Every queue and job of the platform, typed end to end. Producers use JobsService.enqueue;
 * processors in src/worker/ take the same payload types. Add a job here first.
 */
export enum QueueName {
  Mail = 'mail',
}

/**
 * Inference jobs wait in one queue per model, so whoever takes a job (an in-cluster worker, or a remote node
 * claiming through the API) only ever gets jobs for models it has loaded. BullMQ forbids ':' in queue names.
 */
export type InferenceQueue = `inference.${string}`;
export const inferenceQueue = (modelId: string): InferenceQueue => `inference.${modelId}`;

/** Spot checks replay a remote node's reply on a trusted generator (an in-cluster worker that has the model). */
export type VerifyQueue = `verify.${string}`;
export const verifyQueue = (modelId: string): VerifyQueue => `verify.${modelId}`;

export type AnyQueue = QueueName | InferenceQueue | VerifyQueue;

/** Every queue of the platform for these catalog models: the named queues, then each model's inference and verify queue. */
export const platformQueues = (modelIds: readonly string[]): AnyQueue[] => [
  ...Object.values(QueueName),
  ...modelIds.map(inferenceQueue),
  ...modelIds.map(verifyQueue),
];

/** What every job carries besides its payload: the id of the request that enqueued it (its log lines carry it too). */
export interface JobTrace {
  requestId?: string;
}

export interface MailJob extends JobTrace {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
}

/** One chat turn of a generation job (tool definitions and calls included, where the model has a native format). */
export type JobTurn = ChatTurn;

export interface InferenceJob extends JobTrace {
  taskId: string;
  streamId: string;
  userId: string;
  modelId: string;
  /** The chat to answer, formatted by the model's chat template. Every job has `messages` or `prompt`. */
  messages?: JobTurn[];
  /** Instead of `messages`: a raw text the model continues as it is, with no chat template (legacy completions). */
  prompt?: string;
  /** The reply's sampling (the request's values, else its conversation's, else the defaults), as every generator reads it. */
  params: Sampling;
  /** The hold reserved for this reply and the model's price, in milli-GLOB. */
  holdId: string;
  holdUnits: number;
  priceUnits: number;
  /** Where the reply is saved when it ends (issue 6). */
  conversationId?: string;
  /** The saved user message of this turn: it is given the prompt tokens when the reply ends. */
  userMessageId?: string;
  /** When the reply was asked for (ms since the epoch): its time to first token counts from here. */
  requestedAt?: number;
  /**
   * An embedding job instead of a generation: the texts to embed, and their tokens as the platform counted them with
   * the model's tokenizer (what the requester is charged, exactly).
   */
  embed?: { input: string[]; promptTokens: number };
}

/**
 * Verify on a trusted generator what a node answered: a reply (`reply`) or the generation of a model challenge
 * (`proof`), its committed tokens recomputed; or a sample of an embedding job's texts (`embedding`), computed again.
 */
export interface VerifyJob extends JobTrace {
  kind: 'reply' | 'proof' | 'embedding';
  /** The spot check's or the model proof's id. */
  checkId: string;
  modelId: string;
  /** The checked request's input, as it was given: chat turns or a raw prompt. */
  messages?: JobTurn[];
  prompt?: string;
  /**
   * The checked reply's sampling, its seed always given: a replay is generated with it (under the same grammar, or it
   * would not be the same generation), and a recomputation judges the tokens against it.
   */
  params: Sampling & { seed: number };
  /** The checked reply's logprobs, as its node sent them: the trusted generator scores the node's text and compares. */
  score?: { text: string; top: number; logprobs: TokenLogprob[] };
  /**
   * Verify the reply by recomputation instead of replaying it: the node's commitment (base64, null when it sent none),
   * recomputed over the prompt and its tokens, and judged with the text relayed and how the reply ended.
   */
  recompute?: { commitment: string | null; text: string; stopReason: ClaimedEnd };
  /** An embedding job's sample: some of its texts and the vectors the node sent for them (base64 float32), computed again. */
  embeddings?: { texts: string[]; vectors: string[] };
}

/** Job name → payload. */
export interface JobPayloads {
  'mail.send': MailJob;
  'inference.generate': InferenceJob;
  'inference.verify': VerifyJob;
}

export type JobName = keyof JobPayloads;

/** Job name → the queue that carries a job with this payload. */
export const JOB_QUEUES: { [N in JobName]: (data: JobPayloads[N]) => AnyQueue } = {
  'mail.send': () => QueueName.Mail,
  'inference.generate': (data) => inferenceQueue(data.modelId),
  'inference.verify': (data) => verifyQueue(data.modelId),
};
