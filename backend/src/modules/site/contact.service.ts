import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { MailService } from '../../mail/mail.service';
import { htmlEmail } from '../../mail/templates';
import { PRODUCT_NAME } from '../../common/product';
import { ContactRepository } from './contact.repository';

export const CONTACT_THANKS = 'Thank you for your message! We will get back to you soon.';
export const TESTIMONIAL_THANKS = `Thank you for sharing your experience with ${PRODUCT_NAME}!`;

const SUBJECT_LABELS: Record<Schemas['ContactSubject'], string> = {
  general: 'General Inquiry',
  support: 'Technical Support',
  feedback: 'Feedback',
  partnership: 'Partnership Opportunity',
  other: 'Other',
};

@Injectable()
export class ContactService {
  constructor(
    private readonly contact: ContactRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mail: MailService,
  ) {}

  async submitContact(input: RequestBody<'submitContact'>): Promise<Schemas['Submitted']> {
    const saved = { name: input.name.trim(), email: input.email, subject: input.subject, message: input.message, agreedToTerms: input.agreedToTerms };
    const id = await this.contact.insertMessage(saved);
    const label = SUBJECT_LABELS[input.subject];
    const lines = [`From: ${saved.name} <${saved.email}>`, `Subject: ${label}`, '', saved.message];
    await this.forward(`[Contact] ${label} — ${saved.name}`, lines, saved.email, 'New contact message');
    return { id, message: CONTACT_THANKS };
  }

  async submitTestimonial(input: RequestBody<'submitTestimonial'>): Promise<Schemas['Submitted']> {
    const saved = {
      name: input.name.trim(),
      email: input.email,
      role: input.role?.trim() || null,
      message: input.message,
      rating: input.rating ?? 5,
      consent: input.consent,
    };
    const id = await this.contact.insertTestimonial(saved);
    const lines = [`From: ${saved.name} <${saved.email}>${saved.role ? ` (${saved.role})` : ''}`, `Rating: ${saved.rating}/5`, '', saved.message];
    await this.forward(`[Testimonial] ${saved.name}`, lines, saved.email, 'New testimonial for review');
    return { id, message: TESTIMONIAL_THANKS };
  }

  /** Forwards the message to the support address. */
  private async forward(subject: string, lines: string[], replyTo: string, title: string): Promise<void> {
    await this.mail.deliver({
      to: this.config.mail.supportEmail,
      subject,
      replyTo,
      text: lines.join('\n'),
      html: htmlEmail(title, [lines.slice(0, -2).join('\n'), lines.at(-1) ?? '']),
    });
  }
}
