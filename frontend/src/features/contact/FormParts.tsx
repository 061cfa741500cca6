import type { ReactNode } from 'react';
import { Icon } from '../../components/Icon';
import { described } from '../../components/FormField';
import type { SubmitResult } from './submit';

/** The required agreement checkbox both forms end with, with its error. */
export function ConsentField({
  id,
  name,
  checked,
  error,
  onChange,
  children,
}: {
  id: string;
  name: string;
  checked: boolean;
  error?: string | undefined;
  onChange: (checked: boolean) => void;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label className="check" htmlFor={id}>
        <input {...described(id, error)} type="checkbox" name={name} checked={checked} onChange={(e) => onChange(e.target.checked)} />
        <span>{children}</span>
      </label>
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** The outcome of the last submit (success as a status, failure as an alert) and the submit button. */
export function FormFooter({
  result,
  sending,
  icon,
  label,
  busyLabel,
}: {
  result: SubmitResult | null;
  sending: boolean;
  icon: 'mail' | 'star';
  label: string;
  busyLabel: string;
}) {
  return (
    <>
      {result && (
        <div className={`alert ${result.ok ? 'alert-success' : 'alert-error'}`} role={result.ok ? 'status' : 'alert'}>
          <Icon name={result.ok ? 'check' : 'bell'} />
          <span>{result.message}</span>
        </div>
      )}
      <button type="submit" className="btn btn-primary btn-lg form-submit" disabled={sending} aria-busy={sending}>
        <Icon name={icon} />
        {sending ? busyLabel : label}
      </button>
    </>
  );
}
