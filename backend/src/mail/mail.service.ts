import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { MailJob } from '../jobs/jobs';

/**
 * Sends e-mail through SMTP (SMTP_URL, e.g. smtp://user:pass@host:587). Without SMTP_URL, messages
 * (sign-up codes included) are written to the log instead, so a local run needs no mail server.
 */
@Injectable()
export class MailService implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    if (config.mail.smtpUrl) this.transport = nodemailer.createTransport(config.mail.smtpUrl);
  }

  get configured(): boolean {
    return this.transport !== undefined;
  }

  async send(mail: MailJob): Promise<void> {
    if (!this.transport) {
      const log = this.config.env === 'production' ? this.logger.warn.bind(this.logger) : this.logger.log.bind(this.logger);
      log(`(no SMTP_URL; e-mail not sent) To: ${mail.to} | Subject: ${mail.subject}\n${mail.text}`);
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
