import type { ReactNode } from 'react';

/** Label, control, hint and error of one form field, wired for assistive technology (the site's forms and the web app's). */
export function Field({
  id,
  label,
  error,
  hint,
  optional,
  marked = true,
  children,
}: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  optional?: boolean;
  /** Whether the label says required (' *') or '(optional)'; forms where every field is required leave it out. */
  marked?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {marked && (optional ? <span className="optional"> (optional)</span> : <span aria-hidden="true"> *</span>)}
      </label>
      {children}
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

/** aria attributes of a control inside <Field>. */
export function described(id: string, error?: string | undefined, hint?: string | undefined) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': ids || undefined,
  } as const;
}

export function focusFirstError(form: HTMLFormElement | null) {
  form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}
