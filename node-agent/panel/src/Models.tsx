import { Progress, formatBytes } from '@glob/ui';
import type { PanelModel } from '../../src/desktop/panel-api';
import { TEXTS } from './texts';

/** The models on this computer: their state, a bar while one downloads, and the disk they take of the allowed space. */
export function Models({ models, diskGb }: { models: PanelModel[]; diskGb: number | null }) {
  const used = models.reduce((sum, m) => sum + m.bytes, 0);
  return (
    <div className="panel-models">
      <h3>{TEXTS.sharing.modelsTitle}</h3>
      {models.length === 0 ? <p className="panel-muted">{TEXTS.sharing.noModels}</p> : null}
      <ul className="panel-list">
        {models.map((m) => (
          <li key={m.id} className="panel-model">
            <div className="panel-model-head">
              <span className="panel-model-id">{m.id}</span>
              <span className={`badge badge-${m.state}`}>{TEXTS.sharing.modelStates[m.state]}</span>
              {m.serving ? <span className="badge badge-serving">{TEXTS.sharing.serving}</span> : null}
              <span className="panel-muted panel-model-size">
                {m.total_bytes !== null && m.state !== 'ready' ? `${formatBytes(m.bytes)} / ${formatBytes(m.total_bytes)}` : formatBytes(m.bytes)}
              </span>
            </div>
            {m.state === 'pulling' ? (
              <Progress
                label={TEXTS.sharing.downloading(m.id)}
                value={m.total_bytes ? Math.floor((m.bytes / m.total_bytes) * 100) : null}
                valueText={m.total_bytes ? `${formatBytes(m.bytes)} of ${formatBytes(m.total_bytes)}` : formatBytes(m.bytes)}
              />
            ) : null}
            {m.state === 'failed' && m.error ? <p className="panel-error-text">{m.error}</p> : null}
          </li>
        ))}
      </ul>
      {diskGb !== null && models.length > 0 ? <p className="panel-muted">{TEXTS.sharing.diskUse(formatBytes(used), `${diskGb} GB`)}</p> : null}
    </div>
  );
}
