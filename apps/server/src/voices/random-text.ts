export interface RandomText {
  name: string;
  prompt: string;
  previewText: string;
}

/** Chinese tags that name a script or region rather than the texts' keys. */
const ALIASES = new Map<string, string>([
  ['zh', 'zh-CN'],
  ['cmn', 'zh-CN'],
  ['zh-hans', 'zh-CN'],
  ['zh-sg', 'zh-CN'],
  ['zh-hant', 'zh-TW'],
  ['zh-hk', 'zh-TW'],
  ['zh-mo', 'zh-TW'],
  ['yue', 'zh-TW'],
]);

/**
 * Which language's texts answer `lang` (a voice's language, such as `en-029` or `zh-HK`): the
 * exact tag, a known alias, the same language in another region, else English: the texts must
 * suit the voice, never fall back to the interface's language.
 */
export function randomTextLanguage(available: ReadonlyMap<string, unknown>, lang: string | undefined): string {
  if (!lang) return 'en';
  const lower = lang.trim().toLowerCase();
  const keys = [...available.keys()];
  const exact = keys.find((k) => k.toLowerCase() === lower);
  if (exact) return exact;
  // Longest first, so zh-HK is not taken for plain zh.
  for (const [prefix, target] of [...ALIASES].sort((a, b) => b[0].length - a[0].length)) {
    if ((lower === prefix || lower.startsWith(`${prefix}-`)) && available.has(target)) return target;
  }
  const family = lower.split('-')[0];
  return keys.find((k) => k.toLowerCase().split('-')[0] === family) ?? 'en';
}

export function randomTextTable(json: Record<string, RandomText[]>): Map<string, RandomText[]> {
  return new Map(Object.entries(json).filter(([, list]) => Array.isArray(list) && list.length > 0));
}
