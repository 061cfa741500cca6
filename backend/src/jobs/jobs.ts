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

export type AnyQueue = QueueName | InferenceQueue;

export interface MailJob {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
}

export interface InferenceJob {
  taskId: string;
  streamId: string;
  userId: string;
  modelId: string;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  /** `seed` and `stop` come from the OpenAI-compatible API; a generator that does not know them may ignore them. */
  params: { temperature: number; maxTokens: number; topP: number; seed?: number; stop?: string[] };
  /** The hold reserved for this reply and the model's price, in milli-GLOB. */
  holdId: string;
  holdUnits: number;
  priceUnits: number;
  /** Where the reply is saved when it ends (issue 6). */
  conversationId?: string;
  /** The saved user message of this turn: it is given the prompt tokens when the reply ends. */
  userMessageId?: string;
}

/** Job name → payload. */
export interface JobPayloads {
  'mail.send': MailJob;
  'inference.generate': InferenceJob;
}

export type JobName = keyof JobPayloads;

/** Job name → the queue that carries a job with this payload. */
export const JOB_QUEUES: { [N in JobName]: (data: JobPayloads[N]) => AnyQueue } = {
  'mail.send': () => QueueName.Mail,
  'inference.generate': (data) => inferenceQueue(data.modelId),
};
