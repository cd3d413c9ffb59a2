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

/**
 * The translation a browser's languages (`navigator.languages`, best first) ask for: the first one the console speaks
 * (any English; Traditional Chinese for zh-TW, zh-HK, zh-MO and zh-Hant; Simplified for any other Chinese), null when
 * none is one of the three.
 */
export function browserUiLocale(languages: readonly string[] | undefined): UiLocale | null {
  for (const raw of languages ?? []) {
    const tag = raw.toLowerCase();
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
    if (/^zh-(tw|hk|mo)\b/.test(tag) || tag.startsWith('zh-hant')) return 'zh-TW';
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-CN';
  }
  return null;
}

/**
 * The stored choice when there is one; else the browser's language when the console speaks it; else the default
 * (zh-CN), which is for browsers in no language the console speaks.
 */
export function resolveChoice(stored: string | null | undefined, browserLanguages?: readonly string[]): LocaleChoice {
  const code = stored && isUiLocale(stored) ? menuCodeOf(stored) : stored;
  if (code && isKnownLocale(code)) return { choice: code, ui: LOCALE_UI.get(code) ?? 'en' };
  const ui = browserUiLocale(browserLanguages) ?? DEFAULT_UI_LOCALE;
  return { choice: menuCodeOf(ui), ui };
}

export function localeInfo(code: string): { code: string; name: string; flag: string } {
  return LOCALE_FLAGS.find((l) => l.code === code) ?? { code, name: code, flag: '' };
}
