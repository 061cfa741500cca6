import { useCallback, useEffect, useRef, useState, type InputHTMLAttributes } from 'react';
import { Field as FormField, described, focusFirstError } from '../../components/FormField';

/** One labelled input with its hint and error (every field of these forms is required: no marker). */
export function Field({
  id,
  label,
  error,
  hint,
  ...input
}: { id: string; label: string; error?: string | undefined; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <FormField id={id} label={label} error={error} hint={hint} marked={false}>
      <input className="input" {...described(id, error, hint)} {...input} />
    </FormField>
  );
}

/** A form ref and a `refused()` to call after a refused submit: focus then moves to the first invalid control. */
export function useFocusFirstError() {
  const formRef = useRef<HTMLFormElement>(null);
  const [attempts, setAttempts] = useState(0);
  useEffect(() => {
    // After the commit that set aria-invalid.
    if (attempts) focusFirstError(formRef.current);
  }, [attempts]);
  const refused = useCallback(() => setAttempts((n) => n + 1), []);
  return { formRef, refused };
}

/** The screen-level outcome line: an error as an alert, information as a status. */
export function Notice({ error, info }: { error?: string | null; info?: string | null }) {
  return (
    <>
      {error && (
        <div className="alert alert-error auth-notice" role="alert">
          {error}
        </div>
      )}
      {info && !error && (
        <div className="alert alert-success auth-notice" role="status">
          {info}
        </div>
      )}
    </>
  );
}
