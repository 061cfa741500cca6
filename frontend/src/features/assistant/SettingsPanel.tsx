import constants from '@glob/contract/constants.json';
import { useId } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { ConversationSettings } from '../../api/queries/chat';
import { useForm, type FormErrors } from '../../components/useForm';
import { SETTINGS_TEXT as T } from './reply-texts';

type Field = 'temperature' | 'max_tokens' | 'top_p';
const range = (field: Field) => ({ min: constants.inferenceParamRanges[field].minimum, max: constants.inferenceParamRanges[field].maximum });
/** The spec's ranges (ConversationSettings, through the generated constants); the server checks them again. */
const RANGES: Record<Field, { min: number; max: number; step: number; whole?: boolean }> = {
  temperature: { ...range('temperature'), step: 0.1 },
  max_tokens: { ...range('max_tokens'), step: 1, whole: true },
  top_p: { ...range('top_p'), step: 0.05 },
};
const LABELS: Record<Field, string> = { temperature: T.temperature, max_tokens: T.maxTokens, top_p: T.topP };
const FIELDS = Object.keys(RANGES) as Field[];

/** The form's values: the numbers as typed. */
type Draft = { system_prompt: string } & Record<Field, string>;

const draftOf = (s: ConversationSettings): Draft => ({
  system_prompt: s.system_prompt,
  temperature: String(s.temperature),
  max_tokens: String(s.max_tokens),
  top_p: String(s.top_p),
});

/** The typed value as a number within the field's range, or undefined. */
function numberOf(field: Field, typed: string): number | undefined {
  const r = RANGES[field];
  const n = Number(typed);
  return typed.trim() === '' || !Number.isFinite(n) || n < r.min || n > r.max || (r.whole && !Number.isInteger(n)) ? undefined : n;
}

interface Props {
  settings: ConversationSettings;
  defaults: ConversationSettings;
  /** Saves them (on the server when the conversation has an id); false when they were refused. */
  onSave: (settings: ConversationSettings) => Promise<boolean>;
  onClose: () => void;
}

/** The open conversation's system prompt and sampling parameters, checked here first (the first error is focused). */
export function SettingsPanel({ settings, defaults, onSave, onClose }: Props) {
  const ids = { title: useId(), field: useId() };
  // The save runs as a mutation for its pending state (without a connection too: a new conversation's settings stay
  // here); onSave answers false when they were refused, and a throw counts the same.
  const save = useMutation({ mutationFn: (next: ConversationSettings) => onSave(next), networkMode: 'always' });
  const failed = save.data === false || save.isError;
  const { values, errors, set, onSubmit, busy } = useForm<Draft>({
    initial: draftOf(settings),
    validate: (draft) => {
      const found: FormErrors<Draft> = {};
      for (const f of FIELDS) if (numberOf(f, draft[f]) === undefined) found[f] = T.invalid[f];
      return found;
    },
    busy: save.isPending,
    onValid: (draft) =>
      save.mutate(
        {
          system_prompt: draft.system_prompt,
          temperature: numberOf('temperature', draft.temperature)!,
          max_tokens: numberOf('max_tokens', draft.max_tokens)!,
          top_p: numberOf('top_p', draft.top_p)!,
        },
        {
          onSuccess: (ok) => {
            if (ok) onClose();
          },
        },
      ),
  });

  const restoreDefaults = () => {
    const next = draftOf(defaults);
    for (const key of Object.keys(next) as (keyof Draft)[]) set(key, next[key]);
  };

  return (
    <section className="card assistant-settings" aria-labelledby={ids.title}>
      <h2 id={ids.title}>{T.title}</h2>
      <p className="assistant-settings-intro">{T.intro}</p>
      <form onSubmit={onSubmit} noValidate>
        <label htmlFor={`${ids.field}-system`}>{T.systemPrompt}</label>
        <textarea
          id={`${ids.field}-system`}
          value={values.system_prompt}
          maxLength={constants.fieldLimits.ConversationSettings.system_prompt.maxLength}
          rows={3}
          placeholder={T.systemPlaceholder}
          onChange={(e) => set('system_prompt', e.target.value)}
        />
        <div className="assistant-settings-numbers">
          {FIELDS.map((f) => (
            <div key={f} className="assistant-settings-field">
              <label htmlFor={`${ids.field}-${f}`}>{LABELS[f]}</label>
              <input
                id={`${ids.field}-${f}`}
                type="number"
                inputMode="decimal"
                min={RANGES[f].min}
                max={RANGES[f].max}
                step={RANGES[f].step}
                value={values[f]}
                aria-invalid={errors[f] ? true : undefined}
                aria-describedby={errors[f] ? `${ids.field}-${f}-error` : undefined}
                onChange={(e) => set(f, e.target.value)}
              />
              {errors[f] && (
                <p id={`${ids.field}-${f}-error`} className="field-error">
                  {errors[f]}
                </p>
              )}
            </div>
          ))}
        </div>
        {failed && (
          <p className="alert alert-error" role="alert">
            {T.failed}
          </p>
        )}
        <div className="assistant-settings-actions">
          <button type="submit" className="btn btn-sm btn-primary" disabled={busy}>
            {busy ? T.saving : T.save}
          </button>
          <button type="button" className="btn btn-sm" onClick={onClose} disabled={busy}>
            {T.cancel}
          </button>
          <button type="button" className="assistant-link" disabled={busy} onClick={restoreDefaults}>
            {T.defaults}
          </button>
        </div>
      </form>
    </section>
  );
}
