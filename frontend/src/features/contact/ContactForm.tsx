import { useMutation } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Field, described } from '../../components/FormField';
import { useForm } from '../../components/useForm';
import { contactMutations } from './submit';
import { ConsentField, FormFooter } from './FormParts';
import { PersonFields } from './PersonFields';
import { EMPTY_CONTACT, LIMITS, SUBJECTS, validateContact, type ContactValues } from './validation';

/** Sends once at a time, shows the outcome until the next submit, and clears the form after a success. */
export function ContactForm() {
  const send = useMutation(contactMutations.contact());
  const { values, errors, set, reset, onSubmit, busy } = useForm({
    initial: EMPTY_CONTACT,
    validate: validateContact,
    busy: send.isPending,
    onAttempt: () => send.reset(),
    onValid: (valid) =>
      send.mutate(valid, {
        onSuccess: (outcome) => {
          if (outcome.ok) reset();
        },
      }),
  });

  return (
    <form className="contact-form" onSubmit={onSubmit} noValidate aria-label="Contact form">
      <PersonFields prefix="contact" values={values} errors={errors} set={set} />
      <Field id="contact-subject" label="Subject" error={errors.subject}>
        <select
          {...described('contact-subject', errors.subject)}
          className="select"
          name="subject"
          value={values.subject}
          onChange={(e) => set('subject', e.target.value as ContactValues['subject'])}
        >
          <option value="">Select a subject</option>
          {SUBJECTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </Field>
      <Field id="contact-message" label="Message" error={errors.message}>
        <textarea
          {...described('contact-message', errors.message)}
          className="textarea"
          name="message"
          rows={6}
          maxLength={LIMITS.contactMessage}
          value={values.message}
          onChange={(e) => set('message', e.target.value)}
          placeholder="How can we help?"
        />
      </Field>
      <ConsentField
        id="contact-terms"
        name="agreedToTerms"
        checked={values.agreedToTerms}
        error={errors.agreedToTerms}
        onChange={(checked) => set('agreedToTerms', checked)}
      >
        I agree to the <Link to="/privacy-policy">Privacy Policy</Link> and consent to Glob Network storing my message to answer it.
      </ConsentField>
      <FormFooter result={send.data ?? null} sending={busy} icon="mail" label="Send Message" busyLabel="Sending..." />
    </form>
  );
}
