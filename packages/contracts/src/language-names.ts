/**
 * Names of the library's language tags that browsers' trimmed locale data may not know (Chromium
 * ships a reduced ICU): rare, constructed and eSpeak's private-use languages, and the private-use
 * dialects. Keyed by lower-case tag; each entry in the three UI languages.
 */
type Names = readonly [en: string, zhCN: string, zhTW: string];

export const LANGUAGE_FALLBACK = new Map<string, Names>([
  ['ba', ['Bashkir', '巴什基尔语', '巴什基爾文']],
  ['bpy', ['Bishnupriya Manipuri', '比什努普莱利亚-曼尼普尔语', '比什努普萊利亞-曼尼普爾語']],
  ['chr', ['Cherokee', '切罗基语', '柴羅基文']],
  ['cmn', ['Mandarin Chinese', '普通话', '普通話']],
  ['hak', ['Hakka Chinese', '客家话', '客家話']],
  ['hyw', ['Western Armenian', '西亚美尼亚语', '西亞美尼亞語']],
  ['jbo', ['Lojban', '逻辑语', '邏輯語']],
  ['kaa', ['Karakalpak', '卡拉卡尔帕克语', '卡拉卡爾帕克文']],
  ['kok', ['Konkani', '孔卡尼语', '孔卡尼文']],
  ['lfn', ['Lingua Franca Nova', '新共同语言', '新共同語言']],
  ['ltg', ['Latgalian', '拉特加莱语', '拉特加萊文']],
  ['mto', ['Totontepec Mixe', '托通特佩克米塞语', '托通特佩克米塞語']],
  ['nci', ['Classical Nahuatl', '古典纳瓦特尔语', '古典納瓦特爾語']],
  ['nog', ['Nogai', '诺盖语', '諾蓋文']],
  ['py', ['Pyash', '派亚什语', '派亞什語']],
  ['qdb', ['Lang Belta', '贝尔特语', '貝爾特語']],
  ['quc', ["K'iche'", '基切语', '基切文']],
  ['qya', ['Quenya', '昆雅语', '昆雅語']],
  ['shn', ['Shan', '掸语', '撣文']],
  ['sjn', ['Sindarin', '辛达林语', '辛達林語']],
  ['smj', ['Lule Sami', '律勒萨米语', '律勒薩米文']],
  ['tlh', ['Klingon', '克林贡语', '克林貢語']],
  ['tlh-piqd', ['Klingon (pIqaD)', '克林贡语（pIqaD 字母）', '克林貢語（pIqaD 字母）']],
  ['xex', ['Xextan', '谢克斯坦语', '謝克斯坦語']],
  ['yue', ['Cantonese', '粤语', '粵語']],
  ['zh-latn-pinyin', ['Chinese (Pinyin)', '中文（拼音）', '中文（拼音）']],
  ['yue-latn-jyutping', ['Cantonese (Jyutping)', '粤语（粤拼）', '粵語（粵拼）']],
  ['fa-latn', ['Persian (Latin)', '波斯语（拉丁字母）', '波斯語（拉丁字母）']],
]);

/** Regions written as numbers (UN M49), which trimmed locale data often lacks. */
export const REGION_FALLBACK = new Map<string, Names>([
  ['029', ['Caribbean', '加勒比地区', '加勒比海']],
  ['419', ['Latin America', '拉丁美洲', '拉丁美洲']],
]);

/** eSpeak's private-use dialect subtags (`-x-…`). */
export const PRIVATE_FALLBACK = new Map<string, Names>([
  ['ba', ['Balearic', '巴利阿里', '巴利阿里']],
  ['nw', ['North-Western', '西北部', '西北部']],
  ['va', ['Valencian', '瓦伦西亚', '瓦倫西亞']],
  ['gbclan', ['Lancaster', '兰开斯特', '蘭開斯特']],
  ['gbcwmd', ['West Midlands', '西米德兰兹', '西密德蘭']],
  ['rp', ['Received Pronunciation', '标准发音', '標準發音']],
  ['nyc', ['New York City', '纽约', '紐約']],
  ['cl', ['Classic', '古典', '古典']],
  ['central', ['Central', '中部', '中部']],
  ['south', ['Southern', '南部', '南部']],
]);

function pickName(names: Names, uiLocale: string): string {
  return uiLocale === 'zh-CN' ? names[1] : uiLocale === 'zh-TW' ? names[2] : names[0];
}

/** Language codes (BCP 47, as the models list them) shown by name in the UI language. */
export interface NameSource {
  language: (code: string) => string | undefined;
  region: (code: string) => string | undefined;
}

const sources = new Map<string, NameSource>();

function intlNames(uiLocale: string): NameSource {
  let found = sources.get(uiLocale);
  if (!found) {
    const make = (type: 'language' | 'region') => {
      try {
        const names = new Intl.DisplayNames([uiLocale], { type, fallback: 'none' });
        return (code: string) => {
          try {
            return names.of(code);
          } catch {
            return undefined; // not a well-formed tag
          }
        };
      } catch {
        return () => undefined;
      }
    };
    found = { language: make('language'), region: make('region') };
    sources.set(uiLocale, found);
  }
  return found;
}

function joinParts(base: string, parts: string[], uiLocale: string): string {
  if (parts.length === 0) return base;
  return uiLocale.startsWith('zh') ? `${base}（${parts.join('，')}）` : `${base} (${parts.join(', ')})`;
}

/**
 * The name of a language tag in the UI language: the browser's own name when it knows the tag,
 * else the fallback table, else the language's name with its region and dialect spelled out;
 * the bare code only when nothing at all is known.
 */
export function languageName(code: string, uiLocale: string, source: NameSource = intlNames(uiLocale)): string {
  const lower = code.toLowerCase();
  const table = LANGUAGE_FALLBACK.get(lower);
  if (table) return pickName(table, uiLocale);
  const [main, ...privateUse] = lower.split('-x-');
  const privateParts = privateUse
    .flatMap((p) => p.split('-'))
    .map((p) => {
      const known = PRIVATE_FALLBACK.get(p);
      return known ? pickName(known, uiLocale) : p;
    });
  const direct = privateUse.length === 0 ? source.language(code) : undefined;
  if (direct && direct.toLowerCase() !== lower) return direct;

  const subtags = main!.split('-');
  const language = subtags[0]!;
  const languageTable = LANGUAGE_FALLBACK.get(language);
  const base = languageTable ? pickName(languageTable, uiLocale) : source.language(language);
  if (!base || base.toLowerCase() === language) return code;
  const parts: string[] = [];
  for (const sub of subtags.slice(1)) {
    if (/^(\d{3}|[a-z]{2})$/.test(sub)) {
      const region = REGION_FALLBACK.get(sub);
      parts.push(region ? pickName(region, uiLocale) : (source.region(sub.toUpperCase()) ?? sub.toUpperCase()));
    } else {
      parts.push(sub);
    }
  }
  return joinParts(base, [...parts, ...privateParts], uiLocale);
}
