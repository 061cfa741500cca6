import { mutationOptions } from '@tanstack/react-query';
import { SITE } from 'virtual:glob-head';
import { failureText } from '../../api/errors';
import { submitContact, submitTestimonial } from '../../api/queries/site';
import type { ContactSubject, ContactValues, TestimonialValues } from './validation';

/** The contact forms' outcome messages, word for word. */
export const CONTACT_SUCCESS = 'Thank you for your message! We will get back to you soon.';
export const CONTACT_FAILURE = 'Failed to send message. Please try again.';
export const TESTIMONIAL_SUCCESS = `Thank you for sharing your experience with ${SITE.name}!`;
export const TESTIMONIAL_FAILURE = 'Failed to submit testimonial. Please try again.';
export const NETWORK_ERROR = 'An error occurred. Please try again later.';

/** The star buttons do nothing; the rating is always 5. */
export const TESTIMONIAL_RATING = 5;

export interface SubmitResult {
  ok: boolean;
  message: string;
}

/** POST /api/contact/submit: server message or the default on success; server error text or the default on failure. */
export async function sendContact(values: ContactValues): Promise<SubmitResult> {
  try {
    const data = await submitContact({
      name: values.name.trim(),
      email: values.email.trim(),
      subject: values.subject as ContactSubject,
      message: values.message.trim(),
      agreedToTerms: true,
    });
    return { ok: true, message: data?.message?.trim() || CONTACT_SUCCESS };
  } catch (err) {
    return { ok: false, message: failureText(err, CONTACT_FAILURE, NETWORK_ERROR) };
  }
}

/** POST /api/contact/testimonial (the photo is not sent). */
export async function sendTestimonial(values: TestimonialValues): Promise<SubmitResult> {
  try {
    const data = await submitTestimonial({
      name: values.name.trim(),
      email: values.email.trim(),
      role: values.role.trim(),
      message: values.message.trim(),
      rating: TESTIMONIAL_RATING,
      consent: true,
    });
    return { ok: true, message: data?.message?.trim() || TESTIMONIAL_SUCCESS };
  } catch (err) {
    return { ok: false, message: failureText(err, TESTIMONIAL_FAILURE, NETWORK_ERROR) };
  }
}

/**
 * The two sends as mutations. A send never rejects (a failure is a result with its text), and without a connection it
 * fails at once with the network text instead of waiting for one.
 */
export const contactMutations = {
  contact: () => mutationOptions({ mutationKey: ['site', 'contact'] as const, mutationFn: sendContact, networkMode: 'always' }),
  testimonial: () => mutationOptions({ mutationKey: ['site', 'testimonial'] as const, mutationFn: sendTestimonial, networkMode: 'always' }),
};
