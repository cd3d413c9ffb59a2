/** Text normalization by language: written forms (numbers, dates, money, units) into words. */
import { languageFamily } from '../catalogue/languages.ts';
import { normalizeChinese } from './normalize-zh.ts';
import { normalizeEnglish } from './normalize-en.ts';

/** Whitespace and typography every engine reads the same way. */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u200b-\u200d\ufeff]/g, '')
    .replace(/[ \t\u00a0\u3000]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Normalizes for the language the text will be spoken in. English and Chinese get the full
 * treatment; other languages keep their digits, which eSpeak reads in that language itself.
 */
export function normalizeText(text: string, language: string): string {
  const clean = cleanText(text);
  const family = languageFamily(language);
  if (family === 'zh') return normalizeChinese(clean);
  if (family === 'en') return normalizeEnglish(clean);
  return clean;
}

/** Characters that count towards the price: everything but whitespace. */
export function countCharacters(text: string): number {
  let n = 0;
  for (const ch of text) if (!/\s/u.test(ch)) n++;
  return n;
}
