import '../progress.css';

interface Props {
  /** The accessible name ("Downloading llama-3.2-1b"). */
  label: string;
  /** Done so far, out of `max`; null while unknown (an indeterminate bar without aria-valuenow). */
  value: number | null;
  max?: number;
  /** What a screen reader says instead of the bare number ("1.2 of 4 GB"). */
  valueText?: string;
}

/** A thin bar of work done, with role="progressbar" and its value for assistive technology. */
export function Progress({ label, value, max = 100, valueText }: Props) {
  const known = value !== null && max > 0;
  const share = known ? Math.min(Math.max(value / max, 0), 1) : 0;
  return (
    <div
      role="progressbar"
      className={known ? 'ui-progress' : 'ui-progress indeterminate'}
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={known ? value : undefined}
      aria-valuetext={valueText}
    >
      <span className="ui-progress-bar" style={known ? { width: `${share * 100}%` } : undefined} />
    </div>
  );
}
