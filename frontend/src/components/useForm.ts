import { useEffect, useRef, useState, type FormEvent } from 'react';
import { focusFirstError } from './FormField';

/** A form's field errors: one message per invalid field. */
export type FormErrors<V> = Partial<Record<keyof V, string | undefined>>;

/**
 * How every form submits: a blocked submit while `busy` (pass the mutation's isPending); else validate, show the
 * errors and focus the first invalid field, or hand the values to `onValid` (usually starting the mutation). Editing a
 * field clears its error. A hook, not a form library: the forms keep their controlled fields and own validators,
 * and these few lines are all they share.
 */
export function useForm<V extends object>({
  initial,
  validate,
  busy,
  onAttempt,
  onValid,
}: {
  initial: V;
  validate?: (values: V) => FormErrors<V>;
  busy: boolean;
  /** Runs on each submit that is not blocked, before validation (e.g. to clear the last outcome). */
  onAttempt?: () => void;
  onValid: (values: V) => void;
}) {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<FormErrors<V>>({});
  const [refusals, setRefusals] = useState(0);
  /** The form of the last refused submit (taken from the event, so the form needs no ref). */
  const refused = useRef<HTMLFormElement | null>(null);

  useEffect(() => {
    // After the commit that set aria-invalid on the refused fields.
    if (refusals) focusFirstError(refused.current);
  }, [refusals]);

  const set = <K extends keyof V>(key: K, value: V[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => (e[key] ? { ...e, [key]: undefined } : e));
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    onAttempt?.();
    const found = validate?.(values) ?? {};
    setErrors(found);
    if (Object.values(found).some(Boolean)) {
      refused.current = event.currentTarget;
      setRefusals((n) => n + 1);
      return;
    }
    onValid(values);
  };

  /** Back to the initial values without errors (after a success, or when a step starts over). */
  const reset = () => {
    setValues(initial);
    setErrors({});
  };

  return { values, errors, set, reset, onSubmit, busy };
}
