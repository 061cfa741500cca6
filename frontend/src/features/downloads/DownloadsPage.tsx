import { useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import { siteQueries } from '../../api/queries/site';
import { useHydrated } from '../../components/useHydrated';
import { DownloadsHero } from './DownloadsHero';
import { PlatformCards } from './PlatformCards';
import { ReleaseTimeline } from './ReleaseTimeline';
import { StayUpdated } from './StayUpdated';
import { detectPlatform, type Platform } from './platform';
import type { Release, ReleaseAsset } from '../../api/release';
import { useDownloads, type DownloadDeps } from './useDownloads';
import './downloads.css';

interface DownloadsViewProps {
  loading: boolean;
  release: Release | null;
  platform: Platform;
  progress: Record<string, number>;
  onDownload: (asset: ReleaseAsset) => void;
}

/** Every state of the downloads page, from props only. */
export function DownloadsView({ loading, release, platform, progress, onDownload }: DownloadsViewProps) {
  return (
    <>
      <DownloadsHero loading={loading} release={release} platform={platform} progress={progress} onDownload={onDownload} />
      <PlatformCards release={release} platform={platform} progress={progress} onDownload={onDownload} />
      <ReleaseTimeline />
      <StayUpdated />
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
  const { data, isPending } = useQuery(siteQueries.release());
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
