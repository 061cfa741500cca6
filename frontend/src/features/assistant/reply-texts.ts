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
