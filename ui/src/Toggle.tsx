import { useId, type ReactNode } from 'react';
import '../toggle.css';

interface Props {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** A line under the label, read as the switch's description. */
  hint?: ReactNode;
  disabled?: boolean;
}

/** An on/off switch: a button with role="switch" named by its label (clicking the label flips it too). */
export function Toggle({ label, checked, onChange, hint, disabled }: Props) {
  const id = useId();
  return (
    <div className="ui-toggle">
      <button
        id={id}
        type="button"
        role="switch"
        className="ui-toggle-switch"
        aria-checked={checked}
        aria-describedby={hint ? `${id}-hint` : undefined}
        disabled={disabled}
        onClick={() => onChange(!checked)}
      >
        <span className="ui-toggle-thumb" aria-hidden="true" />
      </button>
      <div className="ui-toggle-text">
        <label htmlFor={id}>{label}</label>
        {hint ? (
          <span id={`${id}-hint`} className="ui-toggle-hint">
            {hint}
          </span>
        ) : null}
      </div>
    </div>
  );
}
