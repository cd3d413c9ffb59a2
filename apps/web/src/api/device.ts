import { DEVICE_BRANDS, DEVICE_OS } from '@polyvox/contracts';

export type DeviceOs = (typeof DEVICE_OS)[number];
export type DeviceBrand = (typeof DEVICE_BRANDS)[number];

export interface DeviceDescriptor {
  udid: string;
  model: string;
  brand: DeviceBrand;
  os: DeviceOs;
}

/** Operating system from a user-agent string; only values of the contract's list. */
export function osFromUserAgent(ua: string): DeviceOs {
  if (/Windows Phone/i.test(ua)) return 'windows';
  if (/Android|HarmonyOS/i.test(ua)) return 'android';
  if (/iPhone|iPad|iPod/i.test(ua)) return 'ios';
  if (/Macintosh|Mac OS X/i.test(ua)) return 'osx';
  if (/Windows/i.test(ua)) return 'windows';
  return 'other';
}

const ANDROID_BRANDS: ReadonlyArray<[RegExp, DeviceBrand]> = [
  [/\b(xiaomi|redmi|poco|mi \d|mix \d|\bM\d{4}[A-Z]\d+[A-Z]?\b)/i, 'xiaomi'],
  [/\b(vivo|iqoo|V\d{4}[A-Z]?)\b/i, 'vivo'],
  [/\b(huawei|honor|harmonyos|[A-Z]{3}-(AN|AL|TL|L)\d{2})/i, 'huawei'],
];

export function brandFromUserAgent(ua: string, os: DeviceOs = osFromUserAgent(ua)): DeviceBrand {
  if (os === 'ios' || os === 'osx') return 'apple';
  if (os === 'windows') return 'microsoft';
  if (os === 'android') {
    const model = androidModel(ua) ?? '';
    for (const [pattern, brand] of ANDROID_BRANDS) {
      if (pattern.test(model) || pattern.test(ua)) return brand;
    }
  }
  return 'other';
}

/** "(Linux; Android 14; Pixel 8 Build/…)" → "Pixel 8"; Chrome's reduced UA gives "K", which says nothing. */
const NOT_A_MODEL = /^(K|U|wv|HarmonyOS|HMSCore\b.*|[a-z]{2}(?:[-_][a-z]{2,4})?)$/i;

function androidModel(ua: string): string | undefined {
  const segment = /\(([^)]*Android[^)]*)\)/i.exec(ua)?.[1];
  if (!segment) return undefined;
  const parts = segment.split(';').map((p) => p.trim());
  const after = parts.findIndex((p) => /^Android\b/i.test(p));
  for (const part of parts.slice(after + 1)) {
    const model = part.replace(/\s*Build\/.*$/i, '').trim();
    if (model && !NOT_A_MODEL.test(model)) return model;
  }
  return undefined;
}

export function modelFromUserAgent(ua: string, os: DeviceOs = osFromUserAgent(ua)): string {
  switch (os) {
    case 'android':
      return androidModel(ua) ?? 'Android';
    case 'ios':
      return /iPad/i.test(ua) ? 'iPad' : /iPod/i.test(ua) ? 'iPod' : 'iPhone';
    case 'osx':
      return 'Mac';
    case 'windows':
      return 'Windows PC';
    case 'other':
      return /CrOS/i.test(ua) ? 'Chromebook' : /Linux/i.test(ua) ? 'Linux PC' : 'Unknown';
  }
}

export function describeDevice(ua: string, udid: string): DeviceDescriptor {
  const os = osFromUserAgent(ua);
  return { udid, os, brand: brandFromUserAgent(ua, os), model: modelFromUserAgent(ua, os).slice(0, 128) };
}
