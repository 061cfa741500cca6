import { Icon } from '../../components/Icon';
import { formatDate } from '../../components/format';
import { PLATFORM_LABELS, assetFor, type Platform } from './platform';
import { RELEASE_ERROR, type Release, type ReleaseAsset } from '../../api/release';
import { formatSize, statusText } from './releaseText';

interface Props {
  loading: boolean;
  release: Release | null;
  platform: Platform;
  progress: Record<string, number>;
  onDownload: (asset: ReleaseAsset) => void;
}

/** The release's notice, when it has one. */
function ReleaseNotice({ notice }: { notice: string | undefined }) {
  if (!notice) return null;
  return (
    <div className="alert alert-warn release-notice" role="note">
      <Icon name="bell" />
      <span>{notice}</span>
    </div>
  );
}

/** Version, file, size, date and release notes of the visitor's download. */
function ReleaseMeta({ release, asset }: { release: Release; asset: ReleaseAsset }) {
  return (
    <p className="release-meta">
      v{release.version} · {asset.name}
      {asset.size ? ` · ${formatSize(asset.size)}` : ''}
      {release.release_date ? ` · Released ${formatDate(release.release_date)}` : ''}
      {release.changelog_url && (
        <>
          {' · '}
          <a href={release.changelog_url} target="_blank" rel="noopener noreferrer">
            Release notes
          </a>
        </>
      )}
    </p>
  );
}

/** The page's head: release status, the download for the visitor's OS and the web app. */
export function DownloadsHero({ loading, release, platform, progress, onDownload }: Props) {
  const primaryAsset = assetFor(release, platform);
  const primaryDisabled = loading || !release || release.assets.length === 0 || !primaryAsset;
  const primaryProgress = primaryAsset ? progress[primaryAsset.name] : undefined;
  const osLabel = PLATFORM_LABELS[platform];

  return (
    <section className="page-hero downloads-hero">
      <div className="container">
        <p className={`badge ${release ? 'badge-accent' : 'badge-warn'} release-status`} role="status" aria-live="polite">
          {statusText(loading, release)}
        </p>
        <h1>Download Glob Network</h1>
        <p className="lead">
          Install the desktop client, choose how much GPU, CPU and memory to share, and earn GLB tokens for every task your computer completes.
        </p>
        <ReleaseNotice notice={release?.notice} />
        {!loading && !release && (
          <p className="release-error" role="alert">
            {RELEASE_ERROR}
          </p>
        )}
        <div className="btn-row center downloads-cta">
          <button
            type="button"
            className="btn btn-primary btn-lg"
            disabled={primaryDisabled || primaryProgress !== undefined}
            onClick={() => primaryAsset && onDownload(primaryAsset)}
          >
            <Icon name="download" />
            {primaryProgress !== undefined ? `Downloading... ${Math.round(primaryProgress)}%` : `Download for ${osLabel}`}
            <span className={`btn-badge ${primaryDisabled ? 'soon' : 'ready'}`}>{primaryDisabled ? 'SOON' : 'READY'}</span>
          </button>
          {release ? (
            <a className="btn btn-lg" href="/app/auth" target="_blank" rel="noopener">
              Try Web App
              <Icon name="external" size={18} />
            </a>
          ) : (
            <a className="btn btn-lg" href="#stay-updated">
              Notify Me When Ready
            </a>
          )}
        </div>
        {release && primaryAsset && <ReleaseMeta release={release} asset={primaryAsset} />}
      </div>
    </section>
  );
}
