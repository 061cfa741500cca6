import { useId, useRef } from 'react';
import { useDialogFocus } from './useDialogFocus';

interface Props {
  title: string;
  /** What the action is about (a node, a pool, a key), shown first in the text. */
  name: string;
  text: string;
  confirmLabel: string;
  busyLabel: string;
  cancelLabel: string;
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * The confirmation before something is revoked or dissolved. A modal dialog like the app's others: focus moves in
 * (to Cancel, the safe choice), stays in (Tab cycles), Escape or a click outside closes it, and focus returns to the
 * button that opened it.
 */
export function ConfirmDialog({ title, name, text, confirmLabel, busyLabel, cancelLabel, busy, error, onConfirm, onClose }: Props) {
  const ids = { title: useId(), text: useId() };
  const cancel = useRef<HTMLButtonElement>(null);

  const close = () => {
    if (!busy) onClose();
  };
  const { dialog, onKeyDown } = useDialogFocus(close, cancel);

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        ref={dialog}
        className="card modal-card nodes-dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={ids.title}
        aria-describedby={ids.text}
        onKeyDown={onKeyDown}
      >
        <h2 id={ids.title}>{title}</h2>
        <p id={ids.text} className="nodes-dialog-text">
          <strong>{name}</strong> — {text}
        </p>
        {error ? (
          <p className="alert alert-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="btn-row nodes-dialog-actions">
          <button ref={cancel} type="button" className="btn" onClick={close} disabled={busy}>
            {cancelLabel}
          </button>
          <button type="button" className="btn nodes-btn-danger" onClick={onConfirm} aria-busy={busy || undefined}>
            {busy ? busyLabel : confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
