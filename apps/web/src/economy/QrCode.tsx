import { useMemo } from 'react';
import { encode } from 'uqr';

/**
 * A QR code as an SVG (`uqr`, error correction level M, UTF-8 bytes): one path of dark modules inside the standard
 * four-module quiet zone.
 */
export function QrCode({ text, size = 200, label }: { text: string; size?: number; label: string }) {
  const { path, modules } = useMemo(() => {
    const m = encode(text, { ecc: 'M', border: 0 }).data;
    const parts: string[] = [];
    m.forEach((row, y) => row.forEach((dark, x) => dark && parts.push(`M${x + 4} ${y + 4}h1v1h-1z`)));
    return { path: parts.join(''), modules: m.length + 8 };
  }, [text]);
  return (
    <svg
      width={size}
      height={size}
      viewBox={`0 0 ${modules} ${modules}`}
      role="img"
      aria-label={label}
      shapeRendering="crispEdges"
      data-testid="qr-code"
      data-text={text}
    >
      <rect width={modules} height={modules} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
