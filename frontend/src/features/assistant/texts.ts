import { USD_PER_GLOB } from '../../api/queries/wallet';
import { formatLocalDate } from '../../components/format';

/** The assistant's words, verbatim from the web-app document. */
export const TEXT = {
  loading: 'Loading AI Assistant...',
  title: 'AI Assistant',
  realAi: 'Real AI',
  loginRequired: 'Login required for AI services',
  emptyTitle: 'Start a conversation',
  emptyBody: 'Ask me anything! I can help with coding, writing, analysis, and more.',
  greeting: "Hello! I'm your AI assistant powered by the platform's distributed network. How can I help you today?",
  placeholder: 'Type your message...',
  placeholderNoModel: 'Select a model first...',
  generating: 'Generating...',
  stop: 'Stop generation',
  footerTokens: 'Each message uses tokens from your balance',
  insufficientTitle: 'Insufficient GLB Tokens',
  authRequired: 'Please login to use AI services. You need to authenticate to access real AI models.',
  failure: 'I apologize, but I encountered an error while processing your request. Please try again.',
  modelsFailed: 'Failed to load models. Using default models.',
  defaultDescription: 'AI Language Model',
  noConversations: 'No conversations yet',
  startFirst: 'Start your first conversation',
  pinned: 'Pinned',
  retry: 'Retry',
  confirmDelete: 'Are you sure you want to delete this conversation?',
  defaultTitle: 'New Conversation',
  errors: {
    load: 'Failed to load conversation',
    createNew: 'Failed to create new conversation',
    list: 'Failed to load conversations',
    create: 'Failed to create conversation',
    rename: 'Failed to rename conversation',
    delete: 'Failed to delete conversation',
    export: 'Failed to export conversation',
  },
} as const;

/**
 * 'Tokens used: N • Cost: $X': what the tokens cost at the model's price in GLOB, valued at the platform's USD per
 * GLOB, 4 decimals (0.001 USD per token at the default 0.125 GLOB per token).
 */
export const usageLine = (tokens: number, pricePerToken: number) =>
  `Tokens used: ${tokens} • Cost: $${(tokens * pricePerToken * USD_PER_GLOB).toFixed(4)}`;

/** 'Using {model}'. */
export const usingLine = (model: string) => `Using ${model}`;

/** How busy a model is, beside its status: '3 waiting' (replies queued for it); nothing while none waits. */
export const waitingLine = (waiting: number | undefined) => (waiting ? `${waiting} waiting` : '');

/** A conversation created by the first message is titled 'Chat {date}', in the app's one date format ('Chat Nov 25, 2026'). */
export const chatTitle = (date: Date = new Date()) => `Chat ${formatLocalDate(date)}`;

/** Collapsed, the sidebar lists the 10 most recent conversations. */
export const COLLAPSED_LIMIT = 10;

/** The input grows from 48 px up to 120 px. */
export const INPUT_MIN_PX = 48;
export const INPUT_MAX_PX = 120;

/** Wait after the last keystroke before searching on the server. */
export const SEARCH_DEBOUNCE_MS = 300;

/** The remembered conversation, in local storage. */
export const LAST_CONVERSATION_KEY = 'last_conversation_id';
