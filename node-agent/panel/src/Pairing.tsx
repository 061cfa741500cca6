import { useId, useState, type FormEvent } from 'react';
import { Card } from '@glob/ui';
import type { PanelState } from '../../src/desktop/panel-api';
import { ActionError, useStateAction } from './actions';
import { TEXTS } from './texts';

const time = new Intl.DateTimeFormat('en-US', { timeStyle: 'short' });

/**
 * Pairing by code: unpaired, a button starts it (asking for the platform's address when the app knows none);
 * pairing, the code to confirm and the web app's page that confirms it.
 */
export function Pairing({ state }: { state: PanelState }) {
  const pair = useStateAction<{ api?: string }>('/local/pair');
  const [api, setApi] = useState('');
  const apiId = useId();

  if (state.phase === 'pairing' && state.device) {
    const expires = new Date(state.device.expires_at);
    return (
      <Card title={TEXTS.pairing.title} className="panel-pairing">
        <p className="panel-code-label">{TEXTS.pairing.codeLabel}</p>
        <p className="panel-code" aria-label={`${TEXTS.pairing.codeLabel}: ${state.device.user_code}`}>
          {state.device.user_code}
        </p>
        <p>
          <a className="btn btn-primary" href={state.device.verification_uri_complete} target="_blank" rel="noreferrer">
            {TEXTS.pairing.confirm}
          </a>
        </p>
        {Number.isNaN(expires.getTime()) ? null : <p className="panel-muted">{TEXTS.pairing.expires(time.format(expires))}</p>}
      </Card>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    pair.mutate(state.api === null ? { api: api.trim() } : {});
  };
  return (
    <Card title={TEXTS.pairing.title} className="panel-pairing">
      <p>{TEXTS.pairing.intro}</p>
      <form onSubmit={submit}>
        {state.api === null ? (
          <div className="panel-field">
            <label htmlFor={apiId}>{TEXTS.pairing.apiLabel}</label>
            <input
              id={apiId}
              className="panel-input"
              type="url"
              required
              placeholder="https://globnetwork.io"
              value={api}
              aria-describedby={`${apiId}-hint`}
              onChange={(e) => setApi(e.target.value)}
            />
            <span id={`${apiId}-hint`} className="panel-hint">
              {TEXTS.pairing.apiHint}
            </span>
          </div>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={pair.isPending}>
          {TEXTS.pairing.pair}
        </button>
      </form>
      <ActionError error={pair.error} />
    </Card>
  );
}
