import constants from '@glob/contract/constants.json';
import { useCallback, useEffect, useRef, useState } from 'react';
import { trackDownload } from '../../api/queries/site';
import type { ReleaseAsset } from '../../api/release';

/** Progress advances about every 0.5 s by a random amount up to 20, then clears 2 s after 100. */
export const PROGRESS_TICK_MS = 500;
export const PROGRESS_MAX_STEP = 20;
export const PROGRESS_CLEAR_MS = 2000;

/** The download opens the asset URL in a new tab as a file. */
export function openFile(url: string, name: string) {
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.target = '_blank';
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
}

export interface DownloadDeps {
  track?: typeof trackDownload;
  open?: (url: string, name: string) => void;
  random?: () => number;
}

/**
 * Per-file downloads: analytics POST first (a failure is only logged), then the file opens and a simulated
 * progress runs from 0 to 100 and clears 2 s later. A failing download is logged and its entry removed.
 */
export function useDownloads({ track = trackDownload, open = openFile, random = Math.random }: DownloadDeps = {}) {
  const [progress, setProgress] = useState<Record<string, number>>({});
  const values = useRef(new Map<string, number>());
  const timers = useRef(new Map<string, ReturnType<typeof setInterval> | ReturnType<typeof setTimeout>>());

  const publish = useCallback(() => setProgress(Object.fromEntries(values.current)), []);
  const remove = useCallback(
    (name: string) => {
      const timer = timers.current.get(name);
      if (timer !== undefined) {
        clearInterval(timer);
        clearTimeout(timer);
      }
      timers.current.delete(name);
      values.current.delete(name);
      publish();
    },
    [publish],
  );

  useEffect(() => {
    const active = timers.current;
    return () => {
      active.forEach((t) => {
        clearInterval(t);
        clearTimeout(t);
      });
      active.clear();
    };
  }, []);

  const download = useCallback(
    async (asset: ReleaseAsset) => {
      const { name } = asset;
      if (values.current.has(name)) return; // already running
      values.current.set(name, 0);
      publish();
      try {
        await track({
          platform: asset.platform,
          asset: name,
          timestamp: new Date().toISOString(),
          userAgent: (typeof navigator === 'undefined' ? '' : navigator.userAgent).slice(0, constants.fieldLimits.DownloadEvent.userAgent.maxLength),
        });
      } catch (error) {
        console.warn('Download tracking failed:', error);
      }
      if (!values.current.has(name)) return; // unmounted meanwhile
      try {
        open(asset.download_url, name);
      } catch (error) {
        console.error('Download failed:', error);
        remove(name);
        return;
      }
      const interval = setInterval(() => {
        const current = values.current.get(name);
        if (current === undefined) return;
        const next = Math.min(100, current + random() * PROGRESS_MAX_STEP);
        values.current.set(name, next);
        publish();
        if (next >= 100) {
          clearInterval(interval);
          timers.current.set(
            name,
            setTimeout(() => remove(name), PROGRESS_CLEAR_MS),
          );
        }
      }, PROGRESS_TICK_MS);
      timers.current.set(name, interval);
    },
    [open, publish, random, remove, track],
  );

  return { progress, download };
}
