import { languageName } from '@polyvox/contracts';

export { languageName };

export interface LanguageOption {
  value: string;
  label: string;
}

/** Unique codes, labelled "Name (code)", sorted by name in the UI language. */
export function languageOptions(codes: Iterable<string>, uiLocale: string): LanguageOption[] {
  const unique = [...new Set(codes)].filter(Boolean);
  const collator = new Intl.Collator(uiLocale);
  return unique
    .map((value) => {
      const name = languageName(value, uiLocale);
      return { value, label: name === value ? value : `${name} (${value})` };
    })
    .sort((a, b) => collator.compare(a.label, b.label) || a.value.localeCompare(b.value));
}

/** "English, French +3": a voice's languages in a line. */
export function languageSummary(codes: readonly string[], uiLocale: string, max = 2): { text: string; more: number } {
  const names = [...new Set(codes.map((c) => languageName(c, uiLocale)))];
  return { text: names.slice(0, max).join(', '), more: Math.max(0, names.length - max) };
}

/** The library language closest to the UI language, for a first voice when none is chosen. */
export function preferredVoiceLanguage(uiLocale: string): string {
  if (uiLocale === 'zh-CN' || uiLocale === 'zh-TW') return uiLocale;
  return 'en-US';
}

/** The filter value for a detected language: itself if the library lists it, else its primary subtag. */
export function libraryLanguage(detected: string | undefined, available: readonly string[]): string | undefined {
  if (!detected) return undefined;
  if (available.includes(detected)) return detected;
  const primary = detected.split('-')[0]!;
  return available.includes(primary) ? primary : undefined;
}
