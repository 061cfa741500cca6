/** Message status: a user message is sending, then sent or error; a reply is streaming, then sent (also when stopped). */
export type MessageStatus = 'sending' | 'sent' | 'streaming' | 'error';

/**
 * A message as the assistant shows it. `kind` marks the client's own assistant messages (the greeting and the
 * notices for a failed send, which the server never stores); `replyTo` ties a notice to the user message it
 * answers, so Retry can take it away.
 */
export interface UiMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  status: MessageStatus;
  model?: string | null;
  tokens?: number;
  /** A reply its requester stopped: its text ends where the stop reached the generator (what is saved and charged). */
  stopped?: boolean;
  kind?: 'greeting' | 'insufficient' | 'auth' | 'failure';
  replyTo?: string;
}

/** A model as the dropdown shows it. */
export interface UiModel {
  id: string;
  name: string;
  description: string;
  parameters: string;
  context_length: number;
  status: string;
  /** GLOB charged per token. */
  price_per_token: number;
  /** Replies queued for the model (how busy it is); unknown for the default models. */
  waiting?: number;
}
