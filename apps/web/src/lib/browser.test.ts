import { describe, expect, it } from 'vitest';
import { isChromiumBased } from './browser';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const EDGE = `${CHROME} Edg/130.0.0.0`;
const HEADLESS = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/130.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const CHROME_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1';

describe('isChromiumBased', () => {
  it('trusts userAgentData brands when present', () => {
    expect(isChromiumBased({ userAgent: FIREFOX, brands: [{ brand: 'Not A(Brand' }, { brand: 'Chromium' }] })).toBe(true);
    expect(isChromiumBased({ userAgent: CHROME, brands: [{ brand: 'Not A(Brand' }, { brand: 'Microsoft Edge' }] })).toBe(true);
    expect(isChromiumBased({ userAgent: CHROME, brands: [{ brand: 'Something else' }] })).toBe(false);
  });

  it('falls back to the user-agent string', () => {
    expect(isChromiumBased({ userAgent: CHROME })).toBe(true);
    expect(isChromiumBased({ userAgent: EDGE })).toBe(true);
    expect(isChromiumBased({ userAgent: HEADLESS })).toBe(true);
    expect(isChromiumBased({ userAgent: FIREFOX })).toBe(false);
    expect(isChromiumBased({ userAgent: SAFARI })).toBe(false);
    expect(isChromiumBased({ userAgent: CHROME_IOS })).toBe(false);
    expect(isChromiumBased({ userAgent: '' })).toBe(false);
  });
});
