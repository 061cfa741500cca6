import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';

export interface NewContactMessage {
  name: string;
  email: string;
  subject: Schemas['ContactSubject'];
  message: string;
  agreedToTerms: boolean;
}

export interface NewTestimonial {
  name: string;
  email: string;
  role: string | null;
  message: string;
  rating: number;
  consent: boolean;
}

/** The contact_messages and testimonials tables: what visitors send through the site's forms. */
@Injectable()
export class ContactRepository extends Repository {
  /** Its id. */
  async insertMessage(m: NewContactMessage, tx?: Tx): Promise<string> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO contact_messages (name, email, subject, message, agreed_to_terms) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [m.name, m.email, m.subject, m.message, m.agreedToTerms],
      tx,
    );
    return row!.id;
  }

  /** Stored for review (status pending); its id. */
  async insertTestimonial(t: NewTestimonial, tx?: Tx): Promise<string> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO testimonials (name, email, role, message, rating, consent, status) VALUES ($1, $2, $3, $4, $5, $6, 'pending') RETURNING id`,
      [t.name, t.email, t.role, t.message, t.rating, t.consent],
      tx,
    );
    return row!.id;
  }
}
