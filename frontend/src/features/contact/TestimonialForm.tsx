import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Icon } from '../../components/Icon';
import { Field, described } from '../../components/FormField';
import { useForm } from '../../components/useForm';
import { TESTIMONIAL_RATING, contactMutations } from './submit';
import { ConsentField, FormFooter } from './FormParts';
import { PersonFields } from './PersonFields';
import { EMPTY_TESTIMONIAL, LIMITS, validateTestimonial } from './validation';

/** Sends once at a time, shows the outcome until the next submit, and clears the form after a success. */
export function TestimonialForm() {
  const [fileKey, setFileKey] = useState(0);
  const send = useMutation(contactMutations.testimonial());
  const { values, errors, set, reset, onSubmit, busy } = useForm({
    initial: EMPTY_TESTIMONIAL,
    validate: validateTestimonial,
    busy: send.isPending,
    onAttempt: () => send.reset(),
    onValid: (valid) =>
      send.mutate(valid, {
        onSuccess: (outcome) => {
          if (!outcome.ok) return;
          reset();
          // The file input is cleared too (a new key remounts it).
          setFileKey((k) => k + 1);
        },
      }),
  });

  return (
    <form className="contact-form" onSubmit={onSubmit} noValidate aria-label="Testimonial form">
      <PersonFields prefix="testimonial" values={values} errors={errors} set={set} />
      <Field id="testimonial-role" label="Role or Company" optional>
        <input
          {...described('testimonial-role')}
          className="input"
          name="role"
          autoComplete="organization-title"
          maxLength={LIMITS.role}
          value={values.role}
          onChange={(e) => set('role', e.target.value)}
          placeholder="e.g. Researcher, Acme Ltd"
        />
      </Field>
      <div className="field">
        <span className="label" id="testimonial-rating-label">
          Rating
        </span>
        <div className="stars" role="group" aria-labelledby="testimonial-rating-label" aria-describedby="testimonial-rating-value">
          {Array.from({ length: 5 }, (_, i) => (
            <button key={i} type="button" className="star" aria-label={`${i + 1} star${i ? 's' : ''}`} aria-pressed={i < TESTIMONIAL_RATING}>
              <Icon name="star" size={26} />
            </button>
          ))}
          <span id="testimonial-rating-value" className="stars-value">
            {TESTIMONIAL_RATING} out of 5
          </span>
        </div>
      </div>
      <Field id="testimonial-message" label="Your Experience" error={errors.message}>
        <textarea
          {...described('testimonial-message', errors.message)}
          className="textarea"
          name="message"
          rows={5}
          maxLength={LIMITS.testimonialMessage}
          value={values.message}
          onChange={(e) => set('message', e.target.value)}
          placeholder="Tell us how Glob Network works for you"
        />
      </Field>
      <Field id="testimonial-photo" label="Photo" optional error={errors.photo} hint="Max 2MB, JPG or PNG.">
        <input
          key={fileKey}
          {...described('testimonial-photo', errors.photo, 'Max 2MB, JPG or PNG.')}
          className="input file-input"
          type="file"
          name="photo"
          accept="image/jpeg,image/png"
          onChange={(e) => set('photo', e.target.files?.[0] ?? null)}
        />
      </Field>
      <ConsentField
        id="testimonial-consent"
        name="consent"
        checked={values.consent}
        error={errors.consent}
        onChange={(checked) => set('consent', checked)}
      >
        I agree that Glob Network may publish my testimonial with my name and role.
      </ConsentField>
      <FormFooter result={send.data ?? null} sending={busy} icon="star" label="Submit Testimonial" busyLabel="Submitting..." />
    </form>
  );
}
