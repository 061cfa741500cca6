import type { InputHTMLAttributes } from 'react';
import { Field as FormField, described } from '../../components/FormField';
import { MSG, PASSWORD_LIMITS } from './messages';

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

/** A new password and its confirmation (sign-up and password reset). */
export function NewPasswordFields({
  idPrefix,
  label,
  values,
  errors,
  onEdit,
}: {
  idPrefix: string;
  label: string;
  values: { password: string; confirmPassword: string };
  errors: { password?: string | undefined; confirmPassword?: string | undefined };
  onEdit: (field: 'password' | 'confirmPassword', value: string) => void;
}) {
  return (
    <>
      <Field
        id={`${idPrefix}-password`}
        label={label}
        type="password"
        autoComplete="new-password"
        maxLength={PASSWORD_LIMITS.maxLength}
        hint={MSG.passwordHint}
        value={values.password}
        error={errors.password}
        onChange={(e) => onEdit('password', e.target.value)}
      />
      <Field
        id={`${idPrefix}-confirm`}
        label="Confirm Password"
        type="password"
        autoComplete="new-password"
        maxLength={PASSWORD_LIMITS.maxLength}
        value={values.confirmPassword}
        error={errors.confirmPassword}
        onChange={(e) => onEdit('confirmPassword', e.target.value)}
      />
    </>
  );
}
