import constants from '@glob/contract/constants.json';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { failureText } from '../../api/errors';
import { passkeyMutations, passkeyQueries, type Passkey } from '../../api/queries/security';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { formatDateTime } from '../../components/format';
import { useForm } from '../../components/useForm';
import { Field, Notice } from '../auth/Field';
import { SECURITY_TEXTS } from './texts';

const T = SECURITY_TEXTS.passkeys;

/** One passkey: its name (renamed in place), when it was added and last used, and Remove. */
function PasskeyRow({ passkey, onRemove }: { passkey: Passkey; onRemove: () => void }) {
  const rename = useMutation(passkeyMutations.rename());
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const form = useForm({
    initial: { name: passkey.name },
    validate: ({ name }) => ({ name: name.trim() ? undefined : T.renameLabel }),
    busy: rename.isPending,
    onAttempt: () => setError(null),
    onValid: ({ name }) =>
      rename.mutate(
        { id: passkey.id, name: name.trim() },
        { onSuccess: () => setEditing(false), onError: (err) => setError(failureText(err, T.failed)) },
      ),
  });
  return (
    <li className="security-passkey" data-testid="passkey-row">
      {editing ? (
        <form className="security-passkey-rename" onSubmit={form.onSubmit} noValidate>
          <Field
            id={`${id}-name`}
            label={T.renameLabel}
            maxLength={constants.fieldLimits.PasskeyRenameRequest.name.maxLength}
            value={form.values.name}
            error={form.errors.name}
            onChange={(e) => form.set('name', e.target.value)}
          />
          <Notice error={error} />
          <div className="security-actions">
            <button type="submit" className="btn btn-primary btn-sm" disabled={form.busy}>
              {T.save}
            </button>
            <button type="button" className="btn btn-sm" onClick={() => setEditing(false)}>
              {T.cancel}
            </button>
          </div>
        </form>
      ) : (
        <>
          <div>
            <strong>{passkey.name}</strong>
            <p className="security-passkey-meta">
              {T.created(formatDateTime(passkey.created_at))}, {T.lastUsed(passkey.last_used_at ? formatDateTime(passkey.last_used_at) : null)}
            </p>
          </div>
          <div className="security-actions">
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setEditing(true)}>
              {T.rename}
            </button>
            <button type="button" className="btn btn-ghost btn-sm" onClick={onRemove}>
              {T.remove}
            </button>
          </div>
        </>
      )}
    </li>
  );
}

/** "Passkeys": add one (the browser's passkey dialog), the list with rename and remove. */
export function PasskeysSection() {
  const list = useQuery(passkeyQueries.list());
  const add = useMutation(passkeyMutations.add());
  const remove = useMutation(passkeyMutations.remove());
  const [removing, setRemoving] = useState<Passkey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const nameId = useId();
  const form = useForm({
    initial: { name: '' },
    busy: add.isPending,
    onAttempt: () => setError(null),
    onValid: ({ name }) =>
      add.mutate(name, { onSuccess: () => form.reset(), onError: (err) => setError(failureText(err, T.addFailed, T.addFailed)) }),
  });

  return (
    <section className="card app-section" aria-labelledby={titleId}>
      <h2 id={titleId}>{T.title}</h2>
      <p>{T.intro}</p>
      {list.isPending ? (
        <p role="status">{T.loading}</p>
      ) : list.isError ? (
        <p className="alert alert-error" role="alert">
          {T.loadError}
        </p>
      ) : list.data.length === 0 ? (
        <p>{T.empty}</p>
      ) : (
        <ul className="security-passkeys" aria-label={T.title}>
          {list.data.map((p) => (
            <PasskeyRow
              key={p.id}
              passkey={p}
              onRemove={() => {
                remove.reset();
                setRemoving(p);
              }}
            />
          ))}
        </ul>
      )}
      <form className="security-passkey-add" onSubmit={form.onSubmit} noValidate>
        <Field
          id={nameId}
          label={T.nameLabel}
          maxLength={constants.fieldLimits.PasskeyRegistrationRequest.name.maxLength}
          value={form.values.name}
          onChange={(e) => form.set('name', e.target.value)}
        />
        <Notice error={error} />
        <button type="submit" className="btn btn-primary" disabled={form.busy} aria-busy={form.busy}>
          {form.busy ? T.adding : T.add}
        </button>
      </form>
      {removing && (
        <ConfirmDialog
          title={T.removeTitle}
          name={removing.name}
          text={T.removeText}
          confirmLabel={T.remove}
          busyLabel={T.removing}
          cancelLabel={T.cancel}
          busy={remove.isPending}
          error={remove.isError ? failureText(remove.error, T.failed) : null}
          onConfirm={() => remove.mutate(removing.id, { onSuccess: () => setRemoving(null) })}
          onClose={() => setRemoving(null)}
        />
      )}
    </section>
  );
}
