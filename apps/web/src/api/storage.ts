/** What the console keeps in local storage: the session id and the device id. */
export const SID_KEY = 'polyvox.sid';
export const UDID_KEY = 'polyvox.udid';

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage refused (private mode, quota): the session lasts for this page only.
  }
}

let memorySid: string | null = read(SID_KEY);

export function getSid(): string | null {
  return memorySid;
}

export function saveSid(sid: string | null): void {
  memorySid = sid;
  write(SID_KEY, sid);
}

/** RFC 4122 version 4, from any source of random bytes (crypto.randomUUID needs a secure context). */
export function uuidV4(randomBytes: (bytes: Uint8Array) => Uint8Array): string {
  const b = randomBytes(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function getOrCreateUdid(): string {
  const existing = read(UDID_KEY);
  if (existing && existing.startsWith('web-')) return existing;
  const udid = `web-${uuidV4((bytes) => crypto.getRandomValues(bytes))}`;
  write(UDID_KEY, udid);
  return udid;
}
