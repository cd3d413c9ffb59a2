import { DEFAULT_UI_LOCALE, LOCALE_FLAGS, UI_LOCALES, type UiLocale } from '@polyvox/contracts';

export const LANG_STORAGE_KEY = 'polyvox.lang';

export interface LocaleChoice {
  /** The code picked in the menu: one of the 40 LOCALE_FLAGS codes. */
  choice: string;
  /** The translation actually shown: codes without one fall back to English. */
  ui: UiLocale;
}

export function isUiLocale(code: string): code is UiLocale {
  return (UI_LOCALES as readonly string[]).includes(code);
}

export function isKnownLocale(code: string): boolean {
  return LOCALE_FLAGS.some((l) => l.code === code);
}

export function resolveChoice(stored: string | null | undefined): LocaleChoice {
  if (stored && isKnownLocale(stored)) return { choice: stored, ui: isUiLocale(stored) ? stored : 'en' };
  return { choice: DEFAULT_UI_LOCALE, ui: DEFAULT_UI_LOCALE };
}

export function localeInfo(code: string): { code: string; name: string; flag: string } {
  return LOCALE_FLAGS.find((l) => l.code === code) ?? { code, name: code, flag: '🏳️' };
}
