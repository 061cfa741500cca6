import { useId, useState, type FormEvent } from 'react';
import constants from '@glob/contract/constants.json';
import type { Allocation } from './api';
import { ActionError, useStateAction } from './actions';
import { TEXTS } from './texts';

/** The spec's ranges (the generated contract's constants), as the web app's allocation form reads them. */
const RANGES = constants.nodeAllocation as Record<keyof Allocation, { minimum: number; maximum: number; default: number }>;
const KEYS = Object.keys(RANGES) as (keyof Allocation)[];

const differs = (a: Allocation, b: Allocation) => KEYS.some((k) => a[k] !== b[k]);

/**
 * CPU, memory and GPU shares as sliders and the models' disk space as a number, saved together. The app's values
 * show until the owner changes one; a poll never overwrites an unsaved change.
 */
export function AllocationForm({ allocation, hasGpu }: { allocation: Allocation; hasGpu: boolean }) {
  const baseId = useId();
  const save = useStateAction<Allocation>('/local/allocation');
  const [draft, setDraft] = useState<Allocation | null>(null);
  const shown = draft ?? allocation;
  const dirty = draft !== null && differs(draft, allocation);

  const change = (key: keyof Allocation, value: number) => {
    setDraft({ ...shown, [key]: value });
    save.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!dirty) return;
    save.mutate(draft, { onSuccess: () => setDraft(null) });
  };

  return (
    <form className="panel-allocation" onSubmit={submit} aria-labelledby={`${baseId}-title`}>
      <h3 id={`${baseId}-title`}>{TEXTS.sharing.allocationTitle}</h3>
      {KEYS.map((key) => {
        const range = RANGES[key];
        const id = `${baseId}-${key}`;
        const unit = TEXTS.sharing.units[key];
        return (
          <div className="panel-slider" key={key}>
            <label htmlFor={id}>
              {TEXTS.sharing.labels[key]}{' '}
              <span className="panel-hint">
                ({range.minimum}–{range.maximum}
                {unit})
              </span>
            </label>
            <input
              id={id}
              className={key === 'disk_gb' ? 'panel-input panel-number' : undefined}
              type={key === 'disk_gb' ? 'number' : 'range'}
              name={key}
              min={range.minimum}
              max={range.maximum}
              step={1}
              required
              value={shown[key]}
              aria-valuetext={key === 'disk_gb' ? undefined : `${shown[key]}${unit}`}
              aria-describedby={key === 'gpu_percent' && !hasGpu ? `${baseId}-nogpu` : undefined}
              onChange={(e) => change(key, Math.round(Number(e.target.value)))}
            />
            <output htmlFor={id} className="panel-slider-value">
              {shown[key]}
              {unit}
            </output>
          </div>
        );
      })}
      {!hasGpu ? (
        <p id={`${baseId}-nogpu`} className="panel-hint">
          {TEXTS.sharing.noGpu}
        </p>
      ) : null}
      <div className="panel-row">
        <button type="submit" className="btn btn-sm" disabled={!dirty || save.isPending}>
          {TEXTS.sharing.save}
        </button>
        {dirty ? (
          <button type="button" className="btn btn-sm btn-ghost" onClick={() => setDraft(null)} disabled={save.isPending}>
            {TEXTS.sharing.cancel}
          </button>
        ) : null}
        <span role="status" className="panel-saved">
          {save.isSuccess && !dirty ? TEXTS.sharing.saved : ''}
        </span>
      </div>
      <ActionError error={save.error} />
    </form>
  );
}
