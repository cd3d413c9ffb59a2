import { describe, expect, it } from 'vitest';
import { DEVICE_BRANDS, DEVICE_OS } from '@polyvox/contracts';
import { brandFromUserAgent, describeDevice, modelFromUserAgent, osFromUserAgent } from './device';

const UA = {
  chromeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  edgeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  pixel:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240505.004) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  xiaomi:
    'Mozilla/5.0 (Linux; U; Android 12; zh-cn; Redmi Note 11 Pro Build/SKQ1.211006.001) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.127 Mobile Safari/537.36 XiaoMi/MiuiBrowser/17.1.80',
  miModelCode:
    'Mozilla/5.0 (Linux; Android 13; 2201123C Build/TKQ1.220807.001) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0.0.0 Mobile Safari/537.36 XiaoMi/MiuiBrowser/18.0',
  vivo: 'Mozilla/5.0 (Linux; Android 13; V2227A Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/87.0.4280.141 Mobile Safari/537.36 VivoBrowser/14.0.0.0',
  huawei:
    'Mozilla/5.0 (Linux; Android 10; HarmonyOS; ELS-AN00; HMSCore 6.11.0.302) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.88 HuaweiBrowser/14.0.0.322 Mobile Safari/537.36',
  reducedAndroid:
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  chromebook: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  empty: '',
};

describe('device descriptor from the user agent', () => {
  it.each([
    ['chromeMac', 'osx', 'apple', 'Mac'],
    ['edgeWindows', 'windows', 'microsoft', 'Windows PC'],
    ['iphone', 'ios', 'apple', 'iPhone'],
    ['ipad', 'ios', 'apple', 'iPad'],
    ['pixel', 'android', 'other', 'Pixel 8'],
    ['xiaomi', 'android', 'xiaomi', 'Redmi Note 11 Pro'],
    ['vivo', 'android', 'vivo', 'V2227A'],
    ['huawei', 'android', 'huawei', 'ELS-AN00'],
    ['reducedAndroid', 'android', 'other', 'Android'],
    ['firefoxLinux', 'other', 'other', 'Linux PC'],
    ['chromebook', 'other', 'other', 'Chromebook'],
    ['empty', 'other', 'other', 'Unknown'],
  ] as const)('%s → %s / %s / %s', (name, os, brand, model) => {
    const ua = UA[name];
    expect(osFromUserAgent(ua)).toBe(os);
    expect(brandFromUserAgent(ua)).toBe(brand);
    expect(modelFromUserAgent(ua)).toBe(model);
  });

  it('recognises Xiaomi from the browser when the model is a bare code', () => {
    expect(brandFromUserAgent(UA.miModelCode)).toBe('xiaomi');
  });

  it('only ever answers values of the contract lists, and keeps the udid', () => {
    for (const ua of Object.values(UA)) {
      const d = describeDevice(ua, 'web-123');
      expect(DEVICE_OS).toContain(d.os);
      expect(DEVICE_BRANDS).toContain(d.brand);
      expect(d.udid).toBe('web-123');
      expect(d.model.length).toBeGreaterThan(0);
      expect(d.model.length).toBeLessThanOrEqual(128);
    }
  });
});
