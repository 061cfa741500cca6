import { describe, expect, it } from '@jest/globals';
import { EMPTY_CONTACT, EMPTY_TESTIMONIAL, MESSAGES, SUBJECTS, validateContact, validateTestimonial } from './validation';

const contact = { name: 'Ada', email: 'ada@example.com', subject: 'general', message: 'Hello', agreedToTerms: true } as const;
const testimonial = { name: 'Grace', email: 'grace@example.com', role: '', message: 'Great', consent: true, photo: null };

describe('contact validation', () => {
  it('accepts a complete message', () => {
    expect(validateContact({ ...contact })).toEqual({});
  });
  it('requires name, email, subject, message and the agreement', () => {
    expect(validateContact(EMPTY_CONTACT)).toEqual({
      name: MESSAGES.name,
      email: MESSAGES.email,
      subject: MESSAGES.subject,
      message: MESSAGES.message,
      agreedToTerms: MESSAGES.agreedToTerms,
    });
  });
  it('treats whitespace as empty', () => {
    expect(validateContact({ ...contact, name: '   ', message: '\n\t' })).toEqual({ name: MESSAGES.name, message: MESSAGES.message });
  });
  it('requires a valid email format', () => {
    for (const email of ['ada', 'ada@', 'ada@example', '@example.com', 'a da@example.com']) {
      expect(validateContact({ ...contact, email }).email).toBe(MESSAGES.emailFormat);
    }
    expect(validateContact({ ...contact, email: ' ada.l+net@example.co.uk ' }).email).toBeUndefined();
  });
  it('only accepts the five subjects', () => {
    expect(SUBJECTS.map((s) => [s.value, s.label])).toEqual([
      ['general', 'General Inquiry'],
      ['support', 'Technical Support'],
      ['feedback', 'Feedback'],
      ['partnership', 'Partnership Opportunity'],
      ['other', 'Other'],
    ]);
    expect(validateContact({ ...contact, subject: 'sales' as never }).subject).toBe(MESSAGES.subject);
  });
});

describe('testimonial validation', () => {
  it('requires name, email, message and consent; role is optional', () => {
    expect(validateTestimonial(testimonial)).toEqual({});
    expect(validateTestimonial(EMPTY_TESTIMONIAL)).toEqual({
      name: MESSAGES.name,
      email: MESSAGES.email,
      message: MESSAGES.message,
      consent: MESSAGES.consent,
    });
  });
  it('accepts a JPG or PNG photo up to 2MB and refuses others', () => {
    const file = (size: number, type: string) => new File([new Uint8Array(size)], 'me', { type });
    expect(validateTestimonial({ ...testimonial, photo: file(2 * 1024 * 1024, 'image/png') })).toEqual({});
    expect(validateTestimonial({ ...testimonial, photo: file(1000, 'image/jpeg') })).toEqual({});
    expect(validateTestimonial({ ...testimonial, photo: file(2 * 1024 * 1024 + 1, 'image/png') }).photo).toBe(MESSAGES.photo);
    expect(validateTestimonial({ ...testimonial, photo: file(1000, 'image/gif') }).photo).toBe(MESSAGES.photo);
  });
});
