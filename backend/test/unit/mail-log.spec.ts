import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from '../../src/config/config';
import type { JobsService } from '../../src/jobs/jobs.service';
import { MailService } from '../../src/mail/mail.service';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/glob', NODE_ENV: 'test' };
const mail = { to: 'ada@example.com', subject: 'Your code', text: 'Your Glob Network verification code is: 911402', html: '<p>911402</p>' };

/** What a MailService without SMTP writes to its log for one e-mail, under these settings. */
async function logged(env: Record<string, string>): Promise<string> {
  const lines: string[] = [];
  const spies = (['log', 'warn'] as const).map((level) =>
    jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => void lines.push(String(args[0]))),
  );
  try {
    await new MailService(loadConfig({ ...base, ...env }), {} as JobsService).send(mail);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.join('\n');
}

describe('e-mail without a mail server', () => {
  it('logs only that a mail was not sent by default: the address is personal, codes and links are secrets', async () => {
    const line = await logged({});
    expect(line).toBe('(no SMTP_URL) An e-mail was not sent');
    expect(line).not.toContain('ada@example.com');
    expect(line).not.toContain('911402');
  });

  it('logs the text too with MAIL_LOG_TEXT (make serve on one machine, which has no SMTP), so a sign-up code can be read', async () => {
    expect(await logged({ MAIL_LOG_TEXT: 'true' })).toContain('Your Glob Network verification code is: 911402');
  });

  it('says where e-mails go (what send-otp answers as delivery, for the web app to point at the log)', () => {
    const delivery = (env: Record<string, string>) => new MailService(loadConfig({ ...base, ...env }), {} as JobsService).delivery;
    expect(delivery({ MAIL_LOG_TEXT: 'true' })).toBe('server_log');
    expect(delivery({ NODE_ENV: 'development' })).toBe('server_log');
    expect(delivery({})).toBe('email');
    expect(delivery({ SMTP_URL: 'smtp://127.0.0.1:2525' })).toBe('email');
  });

  it('refuses MAIL_LOG_TEXT beside a mail server', () => {
    expect(() => loadConfig({ ...base, SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_LOG_TEXT: 'true' })).toThrow(ConfigError);
  });
});
