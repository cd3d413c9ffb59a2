import { DEFAULT_UI_LOCALE, LOCALE_FLAGS, LOCALE_UI, UI_LOCALES, type UiLocale } from '@polyvox/contracts';

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

/** The menu code that shows a translation: what an earlier console stored (`en`, `zh-TW`) still works. */
function menuCodeOf(ui: UiLocale): string {
  return [...LOCALE_UI].find(([, u]) => u === ui)?.[0] ?? ui;
}

/** Whether the menu entry is shown in its own translation (not in English). */
export function isTranslated(code: string): boolean {
  return LOCALE_UI.has(code);
}

export function resolveChoice(stored: string | null | undefined): LocaleChoice {
  const code = stored && isUiLocale(stored) ? menuCodeOf(stored) : stored;
  if (code && isKnownLocale(code)) return { choice: code, ui: LOCALE_UI.get(code) ?? 'en' };
  return { choice: menuCodeOf(DEFAULT_UI_LOCALE), ui: DEFAULT_UI_LOCALE };
}

export function localeInfo(code: string): { code: string; name: string; flag: string } {
  return LOCALE_FLAGS.find((l) => l.code === code) ?? { code, name: code, flag: '' };
}
