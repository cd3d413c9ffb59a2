import { errorMessage, type ErrorCode, type MessageLocale } from '@polyvox/contracts';

/** A provider test's outcome as stored: the voices it found, a contract error and its values, or a plain detail. */
type StoredOutcome = { voices: number } | { code: ErrorCode; params: Record<string, string | number> } | { detail: string };

const VOICES: Record<MessageLocale, string> = { en: '{n} voices', 'zh-CN': '{n} 个声音', 'zh-TW': '{n} 個聲音' };

export const storedVoices = (voices: number): string => JSON.stringify({ voices } satisfies StoredOutcome);
export const storedFailure = (code: ErrorCode, params: Record<string, string | number>): string =>
  JSON.stringify({ code, params } satisfies StoredOutcome);
export const storedDetail = (detail: string): string => JSON.stringify({ detail: detail.slice(0, 400) } satisfies StoredOutcome);

/** A stored outcome in `locale` ("11 voices", "11 个声音", an error's message); an older plain sentence as it is. */
export function providerTestMessage(stored: string | null, locale: MessageLocale): string | null {
  if (stored === null) return null;
  let o: StoredOutcome;
  try {
    o = JSON.parse(stored) as StoredOutcome;
  } catch {
    return stored;
  }
  if (typeof o !== 'object' || o === null) return stored;
  if ('voices' in o) return VOICES[locale].replace('{n}', new Intl.NumberFormat(locale).format(o.voices));
  if ('code' in o) return `${o.code}: ${errorMessage(o.code, locale, o.params ?? {})}`;
  if ('detail' in o) return o.detail;
  return stored;
}

/** A provider as answered: its last test told in `locale`. */
export function providerIn<P extends { last_test: { at: string; ok: boolean; message: string | null } | null }>(
  p: P,
  locale: MessageLocale,
): P {
  return p.last_test ? { ...p, last_test: { ...p.last_test, message: providerTestMessage(p.last_test.message, locale) } } : p;
}
