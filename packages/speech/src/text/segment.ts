/**
 * Sentence segmentation for chunked synthesis: Western and CJK sentence punctuation, closing
 * quotes kept with their sentence, abbreviations and decimals not split, and over-long sentences
 * broken at clause punctuation or spaces so the first chunk arrives quickly.
 */

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'jr',
  'sr',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'fig',
  'inc',
  'ltd',
  'co',
  'mt',
  'u.s',
  'a.m',
  'p.m',
]);
const CLOSERS = `"'”’»)]}」』）】》〉`;
const CJK_END = '。！？；…';

export interface SegmentOptions {
  /** Sentences longer than this are split at commas, then at spaces. */
  maxChars?: number;
}

export function splitSentences(text: string, opts: SegmentOptions = {}): string[] {
  const maxChars = opts.maxChars ?? 220;
  const out: string[] = [];
  let start = 0;
  const push = (end: number): void => {
    const s = text.slice(start, end).trim();
    if (s) out.push(...splitLong(s, maxChars));
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n' && (text[i + 1] === '\n' || /[.!?。！？；…:：]\s*$/.test(text.slice(start, i)))) {
      push(i + 1);
      continue;
    }
    const cjk = CJK_END.includes(c);
    const western = c === '.' || c === '!' || c === '?' || c === ';';
    if (!cjk && !western) continue;
    // Runs of terminal punctuation (?!, ..., 。」) stay together.
    let end = i + 1;
    while (end < text.length && (CJK_END.includes(text[end]!) || '.!?'.includes(text[end]!))) end++;
    while (end < text.length && CLOSERS.includes(text[end]!)) end++;
    if (western && !cjk) {
      const next = text[end];
      // Western punctuation ends a sentence only before whitespace or the end of the text (or CJK).
      if (next !== undefined && !/\s/.test(next) && !/[\u3000-\u9fff\uac00-\ud7af]/.test(next)) {
        i = end - 1;
        continue;
      }
      if (c === '.' && end === i + 1) {
        const word = /([\p{L}.]+)$/u.exec(text.slice(start, i))?.[1]?.toLowerCase() ?? '';
        if (ABBREVIATIONS.has(word) || (/^\p{Lu}$/u.test(text[i - 1] ?? '') && /(^|\s)\p{Lu}$/u.test(text.slice(start, i)))) {
          i = end - 1;
          continue;
        }
      }
    }
    push(end);
    i = end - 1;
  }
  push(text.length);
  return out;
}

function splitLong(sentence: string, maxChars: number): string[] {
  if (sentence.length <= maxChars) return [sentence];
  const parts: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    let cut = Math.max(...[...'，、,：:—'].map((p) => window.lastIndexOf(p)));
    if (cut < maxChars * 0.3) cut = window.lastIndexOf(' ');
    if (cut < maxChars * 0.3) cut = maxChars - 1;
    parts.push(rest.slice(0, cut + 1).trim());
    rest = rest.slice(cut + 1).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}
