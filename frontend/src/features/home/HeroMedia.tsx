import { useEffect, useState } from 'react';

const POSTER = '/media/hero/network-poster.webp';

/** A looping, muted animation of the network; the still image when video fails or motion is reduced. */
export function HeroMedia() {
  const [useImage, setUseImage] = useState(false);
  useEffect(() => {
    if (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) setUseImage(true);
  }, []);
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
          onError={() => setUseImage(true)}
        >
          <source src="/media/hero/network.webm" type="video/webm" />
          <source src="/media/hero/network.mp4" type="video/mp4" onError={() => setUseImage(true)} />
          <img src={POSTER} alt={alt} width={960} height={540} />
        </video>
      )}
    </div>
  );
}
