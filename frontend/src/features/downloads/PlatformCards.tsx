import { Icon, type IconName } from '../../components/Icon';
import { assetFor, type Platform } from './platform';
import type { Release, ReleaseAsset } from '../../api/release';
import { DownloadButton } from './DownloadButton';
import { formatSize } from './releaseText';

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

function cardMatches(card: CardId, platform: Platform) {
  return card === 'mobile' ? platform === 'android' || platform === 'ios' : card === platform;
}

/** The file a card downloads: Mobile never has one. */
function cardAsset(card: CardId, release: Release | null): ReleaseAsset | undefined {
  return card === 'mobile' ? undefined : assetFor(release, card);
}

interface Props {
  release: Release | null;
  platform: Platform;
  progress: Record<string, number>;
  onDownload: (asset: ReleaseAsset) => void;
}

/** One platform: its requirements and features, and its download (Linux: the .deb too, when it is another file). */
function PlatformCardItem({ card, release, platform, progress, onDownload }: Props & { card: PlatformCard }) {
  const asset = cardAsset(card.id, release);
  const mine = cardMatches(card.id, platform);
  const deb = card.id === 'linux' ? release?.assets.find((a) => a.platform === 'linux-deb') : undefined;
  return (
    <li className={`card platform-card${mine ? ' is-current' : ''}`} data-platform={card.id}>
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
          <DownloadButton asset={deb} progress={progress} onDownload={onDownload} label="Download .deb" className="btn btn-sm btn-ghost btn-block" />
        )}
        {asset?.size ? <p className="platform-size">{formatSize(asset.size)}</p> : null}
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
