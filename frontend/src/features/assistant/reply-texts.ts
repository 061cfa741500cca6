/**
 * Words the document does not give: a stopped reply's mark, the rendered replies' code blocks and tables, the
 * message actions and the keyboard shortcuts.
 */
export const REPLY_TEXT = {
  stopped: 'Stopped',
  copyCode: 'Copy code',
  copied: 'Copied',
  copyFailed: 'Copy failed',
  codeLabel: 'code',
  tableLabel: 'Table (scrolls sideways)',
  actionsLabel: 'Message actions',
  copy: 'Copy',
  regenerate: 'Regenerate',
  edit: 'Edit',
  editLabel: 'Edit your message',
  saveAndSend: 'Save & send',
  cancel: 'Cancel',
  discardTitle: 'Send the edited message?',
  discardText: 'the replies and messages after it are discarded. What they cost stays in your wallet’s history.',
  shortcuts: 'Keyboard shortcuts',
  shortcutList: [
    ['Esc', 'Stop generating'],
    ['Ctrl + Shift + O', 'New conversation'],
    ['Shift + Esc', 'Focus the message box'],
    ['Enter', 'Send (Shift + Enter: new line)'],
  ],
} as const;

/**
 * The conversation settings panel's words (the document gives the defaults, not the panel). The ranges they state
 * are the spec's, which the panel checks (generated constants); a test holds the words to them. Written out here
 * because Playwright's specs import these words, and its loader takes no JSON import.
 */
export const SETTINGS_TEXT = {
  open: 'Chat settings',
  title: 'Chat settings',
  intro: 'For this conversation: the model reads the system prompt before it, and every message uses these parameters.',
  systemPrompt: 'System prompt',
  systemPlaceholder: 'e.g. You answer in short, plain sentences.',
  temperature: 'Temperature (0–2)',
  maxTokens: 'Max tokens (1–8192)',
  topP: 'Top P (0–1)',
  save: 'Save settings',
  saving: 'Saving…',
  cancel: 'Cancel',
  defaults: 'Reset to defaults',
  failed: 'The settings could not be saved. Please try again.',
  invalid: {
    temperature: 'Temperature must be a number from 0 to 2.',
    max_tokens: 'Max tokens must be a whole number from 1 to 8192.',
    top_p: 'Top P must be a number from 0 to 1.',
  },
} as const;
