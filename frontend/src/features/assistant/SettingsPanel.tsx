import constants from '@glob/contract/constants.json';
import { useId, useRef, useState, type FormEvent } from 'react';
import type { ConversationSettings } from '../../api/queries/chat';
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
  const [draft, setDraft] = useState({
    system_prompt: settings.system_prompt,
    temperature: String(settings.temperature),
    max_tokens: String(settings.max_tokens),
    top_p: String(settings.top_p),
  });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const inputs = useRef<Partial<Record<Field, HTMLInputElement | null>>>({});

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found: Partial<Record<Field, string>> = {};
    const values = {} as Record<Field, number>;
    for (const f of Object.keys(RANGES) as Field[]) {
      const r = RANGES[f];
      const n = Number(draft[f]);
      if (draft[f].trim() === '' || !Number.isFinite(n) || n < r.min || n > r.max || (r.whole && !Number.isInteger(n))) found[f] = T.invalid[f];
      else values[f] = n;
    }
    setErrors(found);
    const first = (Object.keys(RANGES) as Field[]).find((f) => found[f]);
    if (first) {
      inputs.current[first]?.focus();
      return;
    }
    setBusy(true);
    setFailed(false);
    const ok = await onSave({ system_prompt: draft.system_prompt, ...values });
    setBusy(false);
    if (ok) onClose();
    else setFailed(true);
  };

  return (
    <section className="card assistant-settings" aria-labelledby={ids.title}>
      <h2 id={ids.title}>{T.title}</h2>
      <p className="assistant-settings-intro">{T.intro}</p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <label htmlFor={`${ids.field}-system`}>{T.systemPrompt}</label>
        <textarea
          id={`${ids.field}-system`}
          value={draft.system_prompt}
          maxLength={8000}
          rows={3}
          placeholder={T.systemPlaceholder}
          onChange={(e) => setDraft({ ...draft, system_prompt: e.target.value })}
        />
        <div className="assistant-settings-numbers">
          {(Object.keys(RANGES) as Field[]).map((f) => (
            <div key={f} className="assistant-settings-field">
              <label htmlFor={`${ids.field}-${f}`}>{LABELS[f]}</label>
              <input
                id={`${ids.field}-${f}`}
                ref={(el) => {
                  inputs.current[f] = el;
                }}
                type="number"
                inputMode="decimal"
                min={RANGES[f].min}
                max={RANGES[f].max}
                step={RANGES[f].step}
                value={draft[f]}
                aria-invalid={errors[f] ? true : undefined}
                aria-describedby={errors[f] ? `${ids.field}-${f}-error` : undefined}
                onChange={(e) => setDraft({ ...draft, [f]: e.target.value })}
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
          <button
            type="button"
            className="assistant-link"
            disabled={busy}
            onClick={() =>
              setDraft({
                system_prompt: defaults.system_prompt,
                temperature: String(defaults.temperature),
                max_tokens: String(defaults.max_tokens),
                top_p: String(defaults.top_p),
              })
            }
          >
            {T.defaults}
          </button>
        </div>
      </form>
    </section>
  );
}
