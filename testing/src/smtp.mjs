import { SMTPServer } from 'smtp-server';

/**
 * Undoes quoted-printable soft line breaks and escapes, enough to read a code or a link out of a text part.
 * @param {string} raw
 */
function readable(raw) {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, /** @type {string} */ hex) => String.fromCharCode(parseInt(hex, 16)));
}

/** @type {typeof import('./index.mjs').startSmtpCatcher} */
export const startSmtpCatcher = async () => {
  /** @type {import('./index.mjs').CaughtMail[]} */
  const mails = [];
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      /** @type {Buffer[]} */
      const chunks = [];
      stream.on('data', (chunk) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const text = readable(raw);
        mails.push({
          seq: ++received,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject: /^Subject: (.*)$/im.exec(text)?.[1]?.trim() ?? '',
          raw,
          text,
        });
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.server.address());
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`No matching e-mail within ${timeoutMs} ms (got ${mails.length})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
