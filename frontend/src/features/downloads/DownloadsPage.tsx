import { useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { SITE } from 'virtual:glob-head';
import { Icon, type IconName } from '../../components/Icon';
import { useHydrated } from '../../components/useHydrated';
import { formatDate } from '../../components/format';
import { PLATFORM_LABELS, assetFor, detectPlatform, type Platform } from './platform';
import { RELEASE_ERROR, releaseQuery, type Release, type ReleaseAsset } from './release';
import { useDownloads, type DownloadDeps } from './useDownloads';
import './downloads.css';

type CardId = 'windows' | 'macos' | 'linux' | 'mobile';

interface PlatformCard {
  id: CardId;
  icon: IconName;
  title: string;
  requirement: string;
  features: string[];
}

/** The four platform cards. */
export const PLATFORM_CARDS: PlatformCard[] = [
  {
    id: 'windows',
    icon: 'windows',
    title: 'Windows',
    requirement: 'Windows 10/11 (64-bit)',
    features: ['Desktop Application', 'GPU Acceleration', 'Background Processing'],
  },
  {
    id: 'macos',
    icon: 'apple',
    title: 'macOS',
    requirement: 'macOS 10.15+ (Intel & Apple Silicon)',
    features: ['Universal Binary', 'M1/M2/M3 Support', 'Native Performance'],
  },
  {
    id: 'linux',
    icon: 'linux',
    title: 'Linux',
    requirement: 'Ubuntu/Debian, Fedora, Arch',
    features: ['AppImage & DEB formats', 'GPU Support', 'Background Processing'],
  },
  {
    id: 'mobile',
    icon: 'mobile',
    title: 'Mobile',
    requirement: 'iOS & Android (Coming Soon)',
    features: ['Progressive Web App', 'Native Performance', 'Push Notifications'],
  },
];

const TIMELINE = [
  { title: 'Beta Release', when: 'Current', text: 'Desktop clients for Windows, macOS and Linux, and the web app.', current: true },
  { title: 'Mobile Apps', when: 'Q1 2026', text: 'Glob Network on iOS and Android.', current: false },
  { title: 'Stable Release', when: 'Q2 2026', text: 'The production release of the network and its clients.', current: false },
];

function cardMatches(card: CardId, platform: Platform) {
  return card === 'mobile' ? platform === 'android' || platform === 'ios' : card === platform;
}

/** The file a card downloads: Mobile never has one. */
function cardAsset(card: CardId, release: Release | null): ReleaseAsset | undefined {
  return card === 'mobile' ? undefined : assetFor(release, card);
}

export function formatSize(bytes: number): string {
  if (!bytes) return '';
  const mb = bytes / (1024 * 1024);
  return mb >= 100 ? `${Math.round(mb)} MB` : `${mb.toFixed(1)} MB`;
}

export function statusText(loading: boolean, release: Release | null): string {
  if (loading) return 'Loading Release Info...';
  if (!release) return 'Coming Soon';
  return `Latest: v${release.version}${release.is_prerelease ? ' (Beta)' : ''}`;
}

export interface DownloadsViewProps {
  loading: boolean;
  release: Release | null;
  platform: Platform;
  progress: Record<string, number>;
  onDownload: (asset: ReleaseAsset) => void;
}

function DownloadButton({
  asset,
  progress,
  onDownload,
  label,
  className = 'btn btn-primary btn-block',
}: {
  asset: ReleaseAsset | undefined;
  progress: Record<string, number>;
  onDownload: (asset: ReleaseAsset) => void;
  label: string;
  className?: string;
}) {
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

/** Every state of the downloads page, from props only. */
export function DownloadsView({ loading, release, platform, progress, onDownload }: DownloadsViewProps) {
  const primaryAsset = assetFor(release, platform);
  const primaryDisabled = loading || !release || release.assets.length === 0 || !primaryAsset;
  const primaryProgress = primaryAsset ? progress[primaryAsset.name] : undefined;
  const osLabel = PLATFORM_LABELS[platform];

  return (
    <>
      <section className="page-hero downloads-hero">
        <div className="container">
          <p className={`badge ${release ? 'badge-accent' : 'badge-warn'} release-status`} role="status" aria-live="polite">
            {statusText(loading, release)}
          </p>
          <h1>Download Glob Network</h1>
          <p className="lead">
            Install the desktop client, choose how much GPU, CPU and memory to share, and earn GLB tokens for every task your computer completes.
          </p>
          {release?.notice && (
            <div className="alert alert-warn release-notice" role="note">
              <Icon name="bell" />
              <span>{release.notice}</span>
            </div>
          )}
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
          {release && primaryAsset && (
            <p className="release-meta">
              v{release.version} · {primaryAsset.name}
              {primaryAsset.size ? ` · ${formatSize(primaryAsset.size)}` : ''}
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
          )}
        </div>
      </section>

      <section className="section platforms" aria-labelledby="platforms-title">
        <div className="container">
          <div className="section-head">
            <h2 id="platforms-title">Choose Your Platform</h2>
            <p>One client for every desktop. Mobile apps follow in 2026.</p>
          </div>
          <ul className="grid grid-4 platform-grid">
            {PLATFORM_CARDS.map((card) => {
              const asset = cardAsset(card.id, release);
              const mine = cardMatches(card.id, platform);
              const deb = card.id === 'linux' ? release?.assets.find((a) => a.platform === 'linux-deb') : undefined;
              return (
                <li key={card.id} className={`card platform-card${mine ? ' is-current' : ''}`} data-platform={card.id}>
                  <div className="platform-card-top">
                    <span className="icon-tile">
                      <Icon name={card.icon} size={24} />
                    </span>
                    <div className="platform-badges">
                      {mine && <span className="badge badge-cyan">Your OS</span>}
                      <span className={`badge ${asset ? 'badge-accent' : ''}`}>{asset ? 'Available' : 'Soon'}</span>
                    </div>
                  </div>
                  <h3>{card.title}</h3>
                  <p className="platform-req">{card.requirement}</p>
                  <ul className="feature-list">
                    {card.features.map((f) => (
                      <li key={f}>
                        <Icon name="check" size={16} />
                        {f}
                      </li>
                    ))}
                  </ul>
                  <div className="platform-actions">
                    <DownloadButton
                      asset={asset}
                      progress={progress}
                      onDownload={onDownload}
                      label="Download"
                      className={`btn btn-block${mine ? ' btn-primary' : ''}`}
                    />
                    {deb && asset && deb.name !== asset.name && (
                      <DownloadButton
                        asset={deb}
                        progress={progress}
                        onDownload={onDownload}
                        label="Download .deb"
                        className="btn btn-sm btn-ghost btn-block"
                      />
                    )}
                    {asset?.size ? <p className="platform-size">{formatSize(asset.size)}</p> : null}
                  </div>
                </li>
              );
            })}
          </ul>
        </div>
      </section>

      <section className="section roadmap" aria-labelledby="roadmap-title">
        <div className="container">
          <div className="section-head">
            <h2 id="roadmap-title">Release Timeline</h2>
            <p>Where the clients are today and what comes next.</p>
          </div>
          <ol className="roadmap-list">
            {TIMELINE.map((step) => (
              <li key={step.title} className={step.current ? 'is-current' : ''}>
                <span className="roadmap-dot" aria-hidden="true" />
                <p className="roadmap-when">{step.when}</p>
                <h3>{step.title}</h3>
                <p>{step.text}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="section stay-updated" id="stay-updated" aria-labelledby="stay-updated-title">
        <div className="container">
          <div className="card stay-card">
            <div>
              <h2 id="stay-updated-title">Stay Updated</h2>
              <p>
                Be the first to hear about new releases, the mobile apps and the stable release. Join the community, or start using the network in
                your browser today.
              </p>
            </div>
            <div className="btn-row">
              <a className="btn btn-primary" href={SITE.discord} target="_blank" rel="noopener noreferrer">
                <Icon name="discord" size={18} />
                Join Discord
              </a>
              <Link className="btn" to="/app/auth" preload={false}>
                Open Web App
              </Link>
            </div>
          </div>
        </div>
      </section>
    </>
  );
}

const noSubscription = () => () => undefined;
/** The guess's default. */
const DEFAULT_PLATFORM: Platform = 'windows';

/** /downloads: release data, detected OS and per-file downloads. */
export function DownloadsPage({ deps, platform: forced }: { deps?: DownloadDeps; platform?: Platform }) {
  // The prerendered page was built for the default (Windows) and the loading state; the visitor's OS and the
  // release follow right after hydration.
  const platform = useSyncExternalStore(
    noSubscription,
    () => forced ?? detectPlatform(),
    () => forced ?? DEFAULT_PLATFORM,
  );
  const hydrated = useHydrated();
  const { data, isPending } = useQuery(releaseQuery());
  const { progress, download } = useDownloads(deps);
  return (
    <DownloadsView
      loading={!hydrated || isPending}
      release={hydrated ? (data?.release ?? null) : null}
      platform={platform}
      progress={progress}
      onDownload={(asset) => void download(asset)}
    />
  );
}
