import { useCallback, useEffect, useRef, useState, type InputHTMLAttributes } from 'react';

/** One labelled input with its error, wired for assistive technology (aria-invalid + aria-describedby). */
export function Field({
  id,
  label,
  error,
  hint,
  ...input
}: { id: string; label: string; error?: string | undefined; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        className="input"
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...input}
      />
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** A form ref and a `refused()` to call after a refused submit: focus then moves to the first invalid control. */
export function useFocusFirstError() {
  const formRef = useRef<HTMLFormElement>(null);
  const [attempts, setAttempts] = useState(0);
  useEffect(() => {
    // After the commit that set aria-invalid.
    if (attempts) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
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
