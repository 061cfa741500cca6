import { Icon } from '../../components/Icon';
import type { ReleaseAsset } from '../../api/release';

interface Props {
  asset: ReleaseAsset | undefined;
  progress: Record<string, number>;
  onDownload: (asset: ReleaseAsset) => void;
  label: string;
  className?: string;
}

/** A file's download button: its progress while it downloads, disabled when there is no file. */
export function DownloadButton({ asset, progress, onDownload, label, className = 'btn btn-primary btn-block' }: Props) {
  const value = asset ? progress[asset.name] : undefined;
  if (value !== undefined) {
    const pct = Math.round(value);
    return (
      <div className="download-progress">
        <button type="button" className={className} disabled>
          Downloading... {pct}%
        </button>
        <div
          className="progress"
          role="progressbar"
          aria-label={`Downloading ${asset?.name}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={pct}
        >
          <span style={{ width: `${pct}%` }} />
        </div>
      </div>
    );
  }
  if (!asset) {
    return (
      <button type="button" className={className.replace('btn-primary', '')} disabled>
        Coming Soon
      </button>
    );
  }
  return (
    <button type="button" className={className} onClick={() => onDownload(asset)}>
      <Icon name="download" size={18} />
      {label}
    </button>
  );
}
