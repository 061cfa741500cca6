import constants from '@glob/contract/constants.json';
import type { components } from '@glob/contract';

export type ContactSubject = components['schemas']['ContactSubject'];

/** The subjects and their labels. */
export const SUBJECTS: { value: ContactSubject; label: string }[] = [
  { value: 'general', label: 'General Inquiry' },
  { value: 'support', label: 'Technical Support' },
  { value: 'feedback', label: 'Feedback' },
  { value: 'partnership', label: 'Partnership Opportunity' },
  { value: 'other', label: 'Other' },
];

/** Testimonial photo at most 2 MB, JPG or PNG (the file is never sent). */
export const PHOTO_MAX_BYTES = 2 * 1024 * 1024;
export const PHOTO_TYPES = ['image/jpeg', 'image/png'];

const { ContactMessage: CONTACT, Testimonial: TESTIMONIAL } = constants.fieldLimits;
/**
 * The API's own limits (spec ContactMessage / Testimonial), so the form never sends what the server refuses. Name and
 * e-mail: the shorter of the two (both forms share their fields).
 */
export const LIMITS = {
  name: Math.min(CONTACT.name.maxLength, TESTIMONIAL.name.maxLength),
  email: Math.min(CONTACT.email.maxLength, TESTIMONIAL.email.maxLength),
  role: TESTIMONIAL.role.maxLength,
  contactMessage: CONTACT.message.maxLength,
  testimonialMessage: TESTIMONIAL.message.maxLength,
} as const;

export interface ContactValues {
  name: string;
  email: string;
  subject: ContactSubject | '';
  message: string;
  agreedToTerms: boolean;
}

export interface TestimonialValues {
  name: string;
  email: string;
  role: string;
  message: string;
  consent: boolean;
  photo: File | null;
}

export type Errors<T> = Partial<Record<keyof T, string>>;

export const EMPTY_CONTACT: ContactValues = { name: '', email: '', subject: '', message: '', agreedToTerms: false };
export const EMPTY_TESTIMONIAL: TestimonialValues = { name: '', email: '', role: '', message: '', consent: false, photo: null };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const MESSAGES = {
  name: 'Please enter your name.',
  email: 'Please enter your email address.',
  emailFormat: 'Please enter a valid email address.',
  subject: 'Please choose a subject.',
  message: 'Please enter your message.',
  agreedToTerms: 'Please agree to the Privacy Policy to continue.',
  consent: 'Please give your consent to continue.',
  photo: 'The photo must be a JPG or PNG image of 2MB or less.',
};

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email.trim());
}

function checkEmail(email: string): string | undefined {
  if (!email.trim()) return MESSAGES.email;
  if (!isValidEmail(email)) return MESSAGES.emailFormat;
  return undefined;
}

/** Name, email, subject, message required; valid email; subject from the list; agreement required. */
export function validateContact(values: ContactValues): Errors<ContactValues> {
  const errors: Errors<ContactValues> = {};
  if (!values.name.trim()) errors.name = MESSAGES.name;
  const email = checkEmail(values.email);
  if (email) errors.email = email;
  if (!SUBJECTS.some((s) => s.value === values.subject)) errors.subject = MESSAGES.subject;
  if (!values.message.trim()) errors.message = MESSAGES.message;
  if (!values.agreedToTerms) errors.agreedToTerms = MESSAGES.agreedToTerms;
  return errors;
}

/** Name, email, message, consent required; role optional; optional photo (max 2MB, JPG or PNG). */
export function validateTestimonial(values: TestimonialValues): Errors<TestimonialValues> {
  const errors: Errors<TestimonialValues> = {};
  if (!values.name.trim()) errors.name = MESSAGES.name;
  const email = checkEmail(values.email);
  if (email) errors.email = email;
  if (!values.message.trim()) errors.message = MESSAGES.message;
  if (!values.consent) errors.consent = MESSAGES.consent;
  if (values.photo && (values.photo.size > PHOTO_MAX_BYTES || !PHOTO_TYPES.includes(values.photo.type))) {
    errors.photo = MESSAGES.photo;
  }
  return errors;
}
