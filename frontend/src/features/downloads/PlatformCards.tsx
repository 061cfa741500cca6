import { Icon, type IconName } from '../../components/Icon';
import { platformFiles, type Platform } from './platform';
import type { Release, ReleaseAsset } from '../../api/release';
import { DownloadButton } from './DownloadButton';
import { fileKind, formatSize, otherFileLabel } from './releaseText';

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
    // The builds as they are: an app per processor (no universal binary), on the macOS its Node.js runtime needs.
    requirement: 'macOS 13.5+ (Intel & Apple Silicon)',
    features: ['Apple Silicon & Intel builds', 'M1/M2/M3 Support', 'Native Performance'],
  },
  {
    id: 'linux',
    icon: 'linux',
    title: 'Linux',
    requirement: 'Ubuntu/Debian, Fedora, Arch',
    // DEB and tar.gz: an AppImage needs a runtime from outside the registries the release is built from.
    features: ['DEB & tar.gz formats', 'GPU Support', 'Background Processing'],
  },
  {
    id: 'mobile',
    icon: 'mobile',
    title: 'Mobile',
    requirement: 'iOS & Android (Coming Soon)',
    features: ['Progressive Web App', 'Native Performance', 'Push Notifications'],
  },
];

function cardMatches(card: CardId, platform: Platform) {
  return card === 'mobile' ? platform === 'android' || platform === 'ios' : card === platform;
}

interface Props {
  release: Release | null;
  platform: Platform;
  progress: Record<string, number>;
  onDownload: (asset: ReleaseAsset) => void;
}

/** One file of a card: its button, what it is, its size and its SHA-256 (selectable whole, to compare after download). */
function ReleaseFileItem({
  file,
  first,
  mine,
  progress,
  onDownload,
}: Omit<Props, 'release' | 'platform'> & { file: ReleaseAsset; first: boolean; mine: boolean }) {
  const size = formatSize(file.size);
  return (
    <div className="release-file">
      <DownloadButton
        asset={file}
        progress={progress}
        onDownload={onDownload}
        label={first ? 'Download' : otherFileLabel(file)}
        className={first ? `btn btn-block${mine ? ' btn-primary' : ''}` : 'btn btn-sm btn-ghost btn-block'}
      />
      <p className="release-file-kind">
        {fileKind(file)}
        {size ? ` · ${size}` : ''}
      </p>
      {file.sha256 && (
        <dl className="release-file-sum">
          <dt>SHA-256</dt>
          <dd>
            <code>{file.sha256}</code>
          </dd>
        </dl>
      )}
    </div>
  );
}

/** One platform: its requirements and features, and each of its files (Mobile never has one). */
function PlatformCardItem({ card, release, platform, progress, onDownload }: Props & { card: PlatformCard }) {
  const files = card.id === 'mobile' ? [] : platformFiles(release, card.id);
  const mine = cardMatches(card.id, platform);
  return (
    <li className={`card platform-card${mine ? ' is-current' : ''}`} data-platform={card.id}>
      <div className="platform-card-top">
        <span className="icon-tile">
          <Icon name={card.icon} size={24} />
        </span>
        <div className="platform-badges">
          {mine && <span className="badge badge-cyan">Your OS</span>}
          <span className={`badge ${files.length ? 'badge-accent' : ''}`}>{files.length ? 'Available' : 'Soon'}</span>
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
        {files.length === 0 ? (
          <DownloadButton asset={undefined} progress={progress} onDownload={onDownload} label="Download" className="btn btn-block" />
        ) : (
          files.map((file, i) => (
            <ReleaseFileItem key={file.name} file={file} first={i === 0} mine={mine} progress={progress} onDownload={onDownload} />
          ))
        )}
      </div>
    </li>
  );
}

/** 'Choose Your Platform': one card per platform, the visitor's marked. */
export function PlatformCards(props: Props) {
  return (
    <section className="section platforms" aria-labelledby="platforms-title">
      <div className="container">
        <div className="section-head">
          <h2 id="platforms-title">Choose Your Platform</h2>
          <p>One client for every desktop. Mobile apps follow in 2026.</p>
        </div>
        <ul className="grid grid-4 platform-grid">
          {PLATFORM_CARDS.map((card) => (
            <PlatformCardItem key={card.id} card={card} {...props} />
          ))}
        </ul>
      </div>
    </section>
  );
}
