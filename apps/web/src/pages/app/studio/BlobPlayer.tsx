import { useEffect, useState } from 'react';
import { decodePeaks, type Decoded } from '../../../speech/audio/decode';
import { WaveformPlayer } from '../playground/WaveformPlayer';

interface Props {
  /** The audio, fetched once with the session: decoded for the waveform, played from a blob URL. */
  blob: Blob;
  autoplay?: boolean;
}

/** A whole file's waveform and play/pause (the playground's player), for a paragraph or a dialogue. */
export function BlobPlayer({ blob, autoplay = true }: Props) {
  const [src, setSrc] = useState<string | null>(null);
  const [decoded, setDecoded] = useState<Decoded | null>(null);
  useEffect(() => {
    const url = URL.createObjectURL(blob);
    setSrc(url);
    let live = true;
    void blob
      .arrayBuffer()
      .then((bytes) => decodePeaks(new Uint8Array(bytes)))
      .then((d) => {
        if (live) setDecoded(d);
      });
    return () => {
      live = false;
      URL.revokeObjectURL(url);
      setSrc(null);
      setDecoded(null);
    };
  }, [blob]);
  return <WaveformPlayer src={src} peaks={decoded?.peaks ?? null} duration={decoded?.duration ?? null} autoplay={autoplay} />;
}
