/** Locales of the console: three with full translations, and the flags shown in the language menu. */
export const UI_LOCALES = ['en', 'zh-CN', 'zh-TW'] as const;
export type UiLocale = (typeof UI_LOCALES)[number];
export const DEFAULT_UI_LOCALE: UiLocale = 'zh-CN';

/**
 * The seed's 40 locale codes, each with its native name and the country whose flag stands for it
 * (ISO 3166-1 alpha-2, lower case: the console draws it as an SVG image, which every system shows).
 * en-US, zh-CN and zh-HK are shown in the three translations (en, zh-CN, zh-TW); the others in English.
 */
export const LOCALE_FLAGS: ReadonlyArray<{ code: string; name: string; flag: string }> = [
  { code: 'af', name: 'Afrikaans', flag: 'za' },
  { code: 'ar', name: 'العربية', flag: 'sa' },
  { code: 'bg', name: 'Български', flag: 'bg' },
  { code: 'ca', name: 'Català', flag: 'ad' },
  { code: 'cs', name: 'Čeština', flag: 'cz' },
  { code: 'da', name: 'Dansk', flag: 'dk' },
  { code: 'de', name: 'Deutsch', flag: 'de' },
  { code: 'el', name: 'Ελληνικά', flag: 'gr' },
  { code: 'en-US', name: 'English', flag: 'us' },
  { code: 'es', name: 'Español', flag: 'es' },
  { code: 'fa', name: 'فارسی', flag: 'ir' },
  { code: 'fi', name: 'Suomi', flag: 'fi' },
  { code: 'fil', name: 'Filipino', flag: 'ph' },
  { code: 'fr', name: 'Français', flag: 'fr' },
  { code: 'he', name: 'עברית', flag: 'il' },
  { code: 'hi', name: 'हिन्दी', flag: 'in' },
  { code: 'hr', name: 'Hrvatski', flag: 'hr' },
  { code: 'hu', name: 'Magyar', flag: 'hu' },
  { code: 'id', name: 'Bahasa Indonesia', flag: 'id' },
  { code: 'it', name: 'Italiano', flag: 'it' },
  { code: 'ja', name: '日本語', flag: 'jp' },
  { code: 'ko', name: '한국어', flag: 'kr' },
  { code: 'ms', name: 'Bahasa Melayu', flag: 'my' },
  { code: 'nl', name: 'Nederlands', flag: 'nl' },
  { code: 'nn', name: 'Norsk nynorsk', flag: 'no' },
  { code: 'no', name: 'Norsk', flag: 'no' },
  { code: 'pl', name: 'Polski', flag: 'pl' },
  { code: 'pt', name: 'Português', flag: 'pt' },
  { code: 'ro', name: 'Română', flag: 'ro' },
  { code: 'ru', name: 'Русский', flag: 'ru' },
  { code: 'sk', name: 'Slovenčina', flag: 'sk' },
  { code: 'sl', name: 'Slovenščina', flag: 'si' },
  { code: 'sv', name: 'Svenska', flag: 'se' },
  { code: 'ta', name: 'தமிழ்', flag: 'lk' },
  { code: 'th', name: 'ไทย', flag: 'th' },
  { code: 'tr', name: 'Türkçe', flag: 'tr' },
  { code: 'uk', name: 'Українська', flag: 'ua' },
  { code: 'vi', name: 'Tiếng Việt', flag: 'vn' },
  { code: 'zh-CN', name: '简体中文', flag: 'cn' },
  { code: 'zh-HK', name: '繁體中文', flag: 'hk' },
];

/** The translation each locale code is shown in: the three that have one, English for the rest. */
export const LOCALE_UI = new Map<string, UiLocale>([
  ['en-US', 'en'],
  ['zh-CN', 'zh-CN'],
  ['zh-HK', 'zh-TW'],
]);
