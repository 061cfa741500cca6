import { useRef, useState, type FormEvent } from 'react';
import { focusFirstError } from '../../components/FormField';
import type { SubmitResult } from './submit';
import type { Errors } from './validation';

/**
 * The behaviour both contact forms share: a field's error clears when it is edited; submit
 * validates, focuses the first invalid field, sends once at a time, shows the outcome, and clears the
 * form after a success.
 */
export function useSubmitForm<V extends object>(
  empty: V,
  validate: (values: V) => Errors<V>,
  send: (values: V) => Promise<SubmitResult>,
  onSent?: () => void,
) {
  const [values, setValues] = useState<V>(empty);
  const [errors, setErrors] = useState<Errors<V>>({});
  const [result, setResult] = useState<SubmitResult | null>(null);
  const [sending, setSending] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  const set = <K extends keyof V>(key: K, value: V[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    if (errors[key]) setErrors((e) => ({ ...e, [key]: undefined }));
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (sending) return;
    const found = validate(values);
    setErrors(found);
    setResult(null);
    if (Object.keys(found).length > 0) {
      requestAnimationFrame(() => focusFirstError(formRef.current));
      return;
    }
    setSending(true);
    const outcome = await send(values);
    setSending(false);
    setResult(outcome);
    if (outcome.ok) {
      setValues(empty);
      onSent?.();
    }
  };

  return { values, errors, result, sending, formRef, set, onSubmit };
}
