import { useEffect, useState } from 'react';

/** An object URL for `blob` while it is shown (revoked when it changes or the component goes); null without one. */
export function useBlobUrl(blob: Blob | null): string | null {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) return;
    const next = URL.createObjectURL(blob);
    setSrc(next);
    return () => {
      URL.revokeObjectURL(next);
      setSrc(null);
    };
  }, [blob]);
  return src;
}
