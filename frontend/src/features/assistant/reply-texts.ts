/** Words the document does not give: a stopped reply's mark, the rendered replies' code blocks and tables. */
export const REPLY_TEXT = {
  stopped: 'Stopped',
  copyCode: 'Copy code',
  copied: 'Copied',
  copyFailed: 'Copy failed',
  codeLabel: 'code',
  tableLabel: 'Table (scrolls sideways)',
} as const;
