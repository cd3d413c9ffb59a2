/**
 * `<say-as interpret-as>`: the words a marked-up run is read as, in the language it is spoken in, by the normalisers
 * every text goes through (English and Chinese written out; other languages get the digits and letters apart, which
 * eSpeak NG reads in that language).
 */
import { languageFamily } from '../catalogue/languages.ts';
import type { SayAsKind } from './markup.ts';
import { normalizeText } from './normalize.ts';
import { chineseCardinal, chineseDigits, chineseNumber, englishCardinal, englishNumber, englishOrdinal } from './numbers.ts';

const DIGIT_WORDS_EN = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** Each letter and digit on its own (letters in capitals, so an engine names them rather than reading a word). */
function spelled(text: string, zh: boolean): string {
  const out: string[] = [];
  for (const ch of text) {
    if (/\p{N}/u.test(ch) && /[0-9]/.test(ch)) out.push(zh ? chineseDigits(ch) : DIGIT_WORDS_EN[Number(ch)]!);
    else if (/[\p{L}\p{M}]/u.test(ch)) out.push(ch.toUpperCase());
  }
  return out.join(zh ? '' : ' ');
}

/** Digits one by one, groups (runs split by anything else) apart. */
function digitsApart(text: string, zh: boolean): string {
  const groups = text.match(/[0-9]+/g) ?? [];
  return groups
    .map((g) =>
      zh
        ? chineseDigits(g)
        : g
            .split('')
            .map((d) => DIGIT_WORDS_EN[Number(d)])
            .join(' '),
    )
    .join(zh ? '，' : ', ');
}

/** A date in `format` (`mdy`, `dmy`, `ymd`, SSML's `format` attribute) as ISO, which the normalisers read. */
function isoDate(text: string, format: string | undefined): string {
  const n = text.match(/[0-9]+/g);
  if (!n || n.length !== 3) return text;
  const order = (format ?? '').toLowerCase();
  const [y, m, d] =
    order === 'dmy'
      ? [n[2]!, n[1]!, n[0]!]
      : order === 'mdy'
        ? [n[2]!, n[0]!, n[1]!]
        : order === 'ymd'
          ? [n[0]!, n[1]!, n[2]!]
          : [];
  if (!y) return text;
  return `${y.padStart(4, '0')}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
}

export function sayAs(text: string, kind: SayAsKind, language: string, format?: string): string {
  const family = languageFamily(language);
  const zh = family === 'zh';
  const written = text.trim();
  const number = written.replace(/[,\s]/g, '');
  switch (kind) {
    case 'characters':
    case 'spell-out':
      return spelled(written, zh);
    case 'digits':
      return digitsApart(written, zh);
    case 'telephone':
      return digitsApart(written, zh);
    case 'cardinal':
      if (/^[-−+]?[0-9]+(\.[0-9]+)?$/.test(number))
        return zh ? chineseNumber(number) : family === 'en' ? englishNumber(number) : number;
      break;
    case 'ordinal': {
      const digits = /^([0-9]+)(?:st|nd|rd|th|\.)?$/i.exec(number)?.[1];
      if (digits) return zh ? `第${chineseCardinal(digits)}` : family === 'en' ? englishOrdinal(digits) : digits;
      break;
    }
    case 'date':
      return normalizeText(isoDate(written, format), language);
    case 'time':
      return normalizeText(written, language);
  }
  // Not the kind it claims to be: read as any text would be.
  return family === 'en' && /^[0-9]+$/.test(number) ? englishCardinal(number) : normalizeText(written, language);
}
