import { useId, useState } from 'react';
import { ALLOCATION_RANGES, type NodeAllocation } from '../../api/queries/nodes';
import { useForm } from '../../components/useForm';
import { ALLOCATION_LABELS, ALLOCATION_UNITS, NODES_TEXTS } from './texts';

const KEYS = Object.keys(ALLOCATION_RANGES) as (keyof NodeAllocation)[];

interface Props {
  nodeName: string;
  allocation: NodeAllocation;
  hasGpu: boolean;
  busy: boolean;
  onSave: (allocation: NodeAllocation, done: () => void) => void;
}

/** CPU, memory and GPU shares as sliders within the spec's ranges; saved together. */
export function AllocationForm({ nodeName, allocation, hasGpu, busy, onSave }: Props) {
  const baseId = useId();
  const [saved, setSaved] = useState(false);
  const differs = (draft: NodeAllocation | null): draft is NodeAllocation => draft !== null && KEYS.some((k) => draft[k] !== allocation[k]);
  // The node's own values until the owner moves a slider (draft: null); a poll never overwrites an unsaved change.
  const { values, set, reset, onSubmit } = useForm<{ draft: NodeAllocation | null }>({
    initial: { draft: null },
    busy,
    onValid: ({ draft }) => {
      if (!differs(draft)) return;
      onSave(draft, () => {
        reset();
        setSaved(true);
      });
    },
  });
  const shown = values.draft ?? allocation;
  const dirty = differs(values.draft);

  const change = (key: keyof NodeAllocation, value: number) => {
    set('draft', { ...shown, [key]: value });
    setSaved(false);
  };

  return (
    <form className="nodes-allocation" onSubmit={onSubmit} aria-labelledby={`${baseId}-title`}>
      <h4 id={`${baseId}-title`}>
        {NODES_TEXTS.allocationTitle}
        <span className="visually-hidden"> of {nodeName}</span>
      </h4>
      <p className="nodes-hint">{NODES_TEXTS.allocationHint}</p>
      {KEYS.map((key) => {
        const range = ALLOCATION_RANGES[key];
        const id = `${baseId}-${key}`;
        return (
          <div className="nodes-slider" key={key}>
            <label htmlFor={id}>
              {ALLOCATION_LABELS[key]}{' '}
              <span className="nodes-range">
                ({range.minimum}–{range.maximum}
                {ALLOCATION_UNITS[key]})
              </span>
            </label>
            <input
              id={id}
              type="range"
              name={key}
              min={range.minimum}
              max={range.maximum}
              step={1}
              value={shown[key]}
              aria-valuetext={`${shown[key]}${ALLOCATION_UNITS[key]}`}
              aria-describedby={key === 'gpu_percent' && !hasGpu ? `${baseId}-nogpu` : undefined}
              onChange={(e) => change(key, Number(e.target.value))}
            />
            <output htmlFor={id} className="nodes-slider-value">
              {shown[key]}
              {ALLOCATION_UNITS[key]}
            </output>
          </div>
        );
      })}
      {!hasGpu ? (
        <p id={`${baseId}-nogpu`} className="nodes-hint">
          {NODES_TEXTS.noGpu}
        </p>
      ) : null}
      <div className="btn-row">
        <button type="submit" className="btn btn-sm" disabled={!dirty || busy}>
          {NODES_TEXTS.saveAllocation}
        </button>
        {dirty ? (
          <button type="button" className="btn btn-sm btn-ghost" onClick={reset} disabled={busy}>
            {NODES_TEXTS.cancel}
          </button>
        ) : null}
        <span role="status" className="nodes-saved">
          {saved && !dirty ? NODES_TEXTS.saved : ''}
        </span>
      </div>
    </form>
  );
}
