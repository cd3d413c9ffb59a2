import fs from 'node:fs';

/** Normalizes text so that case, spacing (also invisible: zero-width, soft hyphen), punctuation and full-width forms do not hide a word. */
export function normalizeForMatch(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}\p{Cf}_]+/gu, '');
}

export interface SensitiveWords {
  find(text: string): string | null;
}

export function loadSensitiveWords(file: string): SensitiveWords {
  const words = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map(normalizeForMatch)
    .filter(Boolean);
  return {
    find(text) {
      const normalized = normalizeForMatch(text);
      return words.find((w) => normalized.includes(w)) ?? null;
    },
  };
}
