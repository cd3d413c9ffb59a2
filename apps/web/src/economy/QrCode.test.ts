import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import jsQR from 'jsqr';
import { describe, expect, it } from 'vitest';
import { QrCode } from './QrCode';

/** The SVG's modules as RGBA pixels, `scale` pixels a module, read back from its path of `M x y h1v1h-1z` squares. */
function rasterize(svg: string, scale = 4): { data: Uint8ClampedArray; width: number } {
  const modules = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1]);
  const width = modules * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const [, x, y] of svg.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        const p = ((Number(y) * scale + dy) * width + Number(x) * scale + dx) * 4;
        data.fill(0, p, p + 3);
      }
    }
  }
  return { data, width };
}

const read = (text: string) => {
  const svg = renderToStaticMarkup(createElement(QrCode, { text, label: 'Pay' }));
  const { data, width } = rasterize(svg);
  return { svg, decoded: jsQR(data, width, width)?.data };
};

describe('QrCode', () => {
  it('renders a payment URL that a QR reader reads back', () => {
    const url = 'weixin://wxpay/bizpayurl?pr=Ab3dEf9';
    const { svg, decoded } = read(url);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('aria-label="Pay"');
    expect(decoded).toBe(url);
  });

  it('reads back a long URL and non-ASCII text (UTF-8 bytes)', () => {
    const long = `https://qr.alipay.com/${'bax'.repeat(60)}?t=${'9'.repeat(40)}`;
    expect(read(long).decoded).toBe(long);
    expect(read('付款 Polyvox').decoded).toBe('付款 Polyvox');
  });

  it('draws a version 2 code (25 modules) inside a four-module quiet zone for a short URL, at level M', () => {
    // 20 bytes do not fit version 1 at level M (14 bytes); version 2 holds 26.
    const { svg } = read('https://pay.ex/o/123');
    expect(svg).toContain('viewBox="0 0 33 33"');
    expect(svg).not.toMatch(/M[0-3] \d+h/);
  });
});
