import constants from '@glob/contract/constants.json';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useForm } from '../../components/useForm';
import { NODES_TEXTS } from './texts';

/** The spec's NodeName (a node's or a pool's name): its length limits. */
const NAME_LIMITS = constants.fieldLimits.NodeUpdate.name;

/** spec NodeName: 1-60 characters, no control characters. */
export function validateNodeName(raw: string): string | null {
  const name = raw.trim();
  if (!name) return NODES_TEXTS.nameRequired;
  if (name.length > NAME_LIMITS.maxLength) return NODES_TEXTS.nameTooLong;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(name)) return NODES_TEXTS.nameRequired;
  return null;
}

interface Props {
  name: string;
  busy: boolean;
  onRename: (name: string, done: () => void) => void;
}

/** The node's name as its heading, and a Rename button that turns it into a small form (Escape cancels). */
export function NodeName({ name, busy, onRename }: Props) {
  const inputId = useId();
  const errorId = useId();
  const [editing, setEditing] = useState(false);
  const { values, errors, set, reset, onSubmit } = useForm({
    initial: { name },
    validate: (v) => ({ name: validateNodeName(v.name) ?? undefined }),
    busy,
    onValid: (v) => {
      const next = v.name.trim();
      if (next === name) setEditing(false);
      else onRename(next, () => setEditing(false));
    },
  });
  const error = errors.name;
  const input = useRef<HTMLInputElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);

  useEffect(() => {
    if (editing) {
      input.current?.focus();
      input.current?.select();
    } else if (wasEditing.current) renameButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  /** Editing starts from the current name, without the last attempt's error. */
  const start = () => {
    reset();
    setEditing(true);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      setEditing(false);
    }
  };

  if (!editing) {
    return (
      <div className="nodes-name">
        <h3>{name}</h3>
        <button ref={renameButton} type="button" className="btn btn-sm btn-ghost" onClick={start}>
          {NODES_TEXTS.rename}
          <span className="visually-hidden"> {name}</span>
        </button>
      </div>
    );
  }

  return (
    <form className="nodes-name nodes-name-form" onSubmit={onSubmit} noValidate>
      <h3 className="visually-hidden">{name}</h3>
      <div className="field">
        <label htmlFor={inputId}>{NODES_TEXTS.nameLabel}</label>
        <input
          ref={input}
          id={inputId}
          className="input"
          name="name"
          maxLength={NAME_LIMITS.maxLength}
          autoComplete="off"
          value={values.name}
          onChange={(e) => set('name', e.target.value)}
          onKeyDown={onKeyDown}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? errorId : undefined}
        />
        {error ? (
          <p id={errorId} className="field-error">
            {error}
          </p>
        ) : null}
      </div>
      <div className="btn-row">
        <button type="submit" className="btn btn-sm btn-primary" aria-busy={busy || undefined}>
          {NODES_TEXTS.save}
        </button>
        <button type="button" className="btn btn-sm" onClick={() => setEditing(false)}>
          {NODES_TEXTS.cancel}
        </button>
      </div>
    </form>
  );
}
