import { useState, useSyncExternalStore } from 'react';

const POSTER = '/media/hero/network-poster.webp';
const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';

const prefersReducedMotion = () => window.matchMedia?.(REDUCED_MOTION).matches ?? false;
function subscribeReducedMotion(onChange: () => void): () => void {
  const query = window.matchMedia?.(REDUCED_MOTION);
  query?.addEventListener?.('change', onChange);
  return () => query?.removeEventListener?.('change', onChange);
}

/** A looping, muted animation of the network; the still image when video fails or motion is reduced. */
export function HeroMedia() {
  // The server renders the video; a browser that asks for reduced motion switches to the still image.
  const reducedMotion = useSyncExternalStore(subscribeReducedMotion, prefersReducedMotion, () => false);
  const [videoFailed, setVideoFailed] = useState(false);
  const useImage = reducedMotion || videoFailed;
  const alt = 'Animated map of devices on the Glob Network sharing an AI model between them';
  return (
    <div className="hero-media">
      {useImage ? (
        <img src={POSTER} alt={alt} width={960} height={540} fetchPriority="high" />
      ) : (
        <video
          autoPlay
          muted
          loop
          playsInline
          preload="auto"
          poster={POSTER}
          width={960}
          height={540}
          aria-label={alt}
          onError={() => setVideoFailed(true)}
        >
          <source src="/media/hero/network.webm" type="video/webm" />
          <source src="/media/hero/network.mp4" type="video/mp4" onError={() => setVideoFailed(true)} />
          <img src={POSTER} alt={alt} width={960} height={540} />
        </video>
      )}
    </div>
  );
}
