import { Link } from '@tanstack/react-router';
import { Icon } from '../../components/Icon';
import { Field, described } from './Field';
import { sendContact } from './submit';
import { PersonFields } from './PersonFields';
import { useSubmitForm } from './useSubmitForm';
import { EMPTY_CONTACT, LIMITS, SUBJECTS, validateContact, type ContactValues } from './validation';

export function ContactForm() {
  const { values, errors, result, sending, formRef, set, onSubmit } = useSubmitForm(EMPTY_CONTACT, validateContact, sendContact);

  return (
    <form ref={formRef} className="contact-form" onSubmit={onSubmit} noValidate aria-label="Contact form">
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
      <div className="field">
        <label className="check" htmlFor="contact-terms">
          <input
            {...described('contact-terms', errors.agreedToTerms)}
            type="checkbox"
            name="agreedToTerms"
            checked={values.agreedToTerms}
            onChange={(e) => set('agreedToTerms', e.target.checked)}
          />
          <span>
            I agree to the <Link to="/privacy-policy">Privacy Policy</Link> and consent to Glob Network storing my
            message to answer it.
          </span>
        </label>
        {errors.agreedToTerms && (
          <span className="field-error" id="contact-terms-error">
            {errors.agreedToTerms}
          </span>
        )}
      </div>
      {result && (
        <div className={`alert ${result.ok ? 'alert-success' : 'alert-error'}`} role={result.ok ? 'status' : 'alert'}>
          <Icon name={result.ok ? 'check' : 'bell'} />
          <span>{result.message}</span>
        </div>
      )}
      <button type="submit" className="btn btn-primary btn-lg form-submit" disabled={sending} aria-busy={sending}>
        <Icon name="mail" />
        {sending ? 'Sending...' : 'Send Message'}
      </button>
    </form>
  );
}
