import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { MailJob } from '../jobs/jobs';
import { JobsService } from '../jobs/jobs.service';

/**
 * Sends e-mail through SMTP (SMTP_URL, e.g. smtp://user:pass@host:587). Without SMTP_URL, a development run
 * (`make dev`, or `make serve` with MAIL_LOG_TEXT) writes messages, sign-up codes included, to its log instead, so it
 * needs no mail server; otherwise only that a mail was not sent is logged (its address is personal, its text secret).
 */
@Injectable()
export class MailService implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsService,
  ) {
    if (config.mail.smtpUrl) this.transport = nodemailer.createTransport(config.mail.smtpUrl);
  }

  /** Where e-mails go: by mail, or (no SMTP_URL, in development or with MAIL_LOG_TEXT) whole into this log. */
  get delivery(): 'email' | 'server_log' {
    return this.transport || !(this.config.env === 'development' || this.config.mail.logText) ? 'email' : 'server_log';
  }

  /**
   * What request handlers call: with SMTP the message is queued and the worker sends it (with retries,
   * and every request answers in the same time whatever it sends); without SMTP it is logged right here.
   */
  async deliver(mail: MailJob): Promise<void> {
    if (this.transport) await this.jobs.enqueue('mail.send', mail);
    else await this.send(mail);
  }

  /** Sends now (the worker's mail processor). */
  async send(mail: MailJob): Promise<void> {
    if (!this.transport) {
      // Whole, for the person running a local copy to read their code; otherwise not even the address (personal data).
      if (this.delivery === 'server_log') this.logger.log(`(no SMTP_URL; e-mail not sent) To: ${mail.to} | Subject: ${mail.subject}\n${mail.text}`);
      else if (this.config.env === 'production') this.logger.warn('(no SMTP_URL) An e-mail was not sent');
      else this.logger.log('(no SMTP_URL) An e-mail was not sent');
      return;
    }
    await this.transport.sendMail({
      from: this.config.mail.from,
      to: mail.to,
      replyTo: mail.replyTo,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
