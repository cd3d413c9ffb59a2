/**
 * Language of a text, from its scripts first and, for Latin and Cyrillic text, its function
 * words; and whether a voice's languages cover it. Built for the LANGUAGE_UNSUPPORTED check and
 * the console's warning, so it answers `und` rather than guess.
 */
import { languageFamily } from '../catalogue/languages.ts';

export interface DetectedLanguage {
  /** BCP-47 tag, or `und` when the text gives no clear answer. */
  language: string;
  /** 0–1. */
  confidence: number;
  /** Letter counts per script. */
  scripts: Record<string, number>;
}

const SCRIPTS: [string, RegExp][] = [
  ['Hani', /\p{Script=Han}/u],
  ['Hira', /\p{Script=Hiragana}/u],
  ['Kana', /\p{Script=Katakana}/u],
  ['Hang', /\p{Script=Hangul}/u],
  ['Latn', /\p{Script=Latin}/u],
  ['Cyrl', /\p{Script=Cyrillic}/u],
  ['Arab', /\p{Script=Arabic}/u],
  ['Hebr', /\p{Script=Hebrew}/u],
  ['Grek', /\p{Script=Greek}/u],
  ['Deva', /\p{Script=Devanagari}/u],
  ['Beng', /\p{Script=Bengali}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['Taml', /\p{Script=Tamil}/u],
  ['Telu', /\p{Script=Telugu}/u],
  ['Knda', /\p{Script=Kannada}/u],
  ['Mlym', /\p{Script=Malayalam}/u],
  ['Gujr', /\p{Script=Gujarati}/u],
  ['Guru', /\p{Script=Gurmukhi}/u],
  ['Geor', /\p{Script=Georgian}/u],
  ['Armn', /\p{Script=Armenian}/u],
  ['Ethi', /\p{Script=Ethiopic}/u],
  ['Mymr', /\p{Script=Myanmar}/u],
  ['Sinh', /\p{Script=Sinhala}/u],
  ['Orya', /\p{Script=Oriya}/u],
];

/** Scripts that name one language on their own. */
const SCRIPT_LANGUAGE: Record<string, string> = {
  Hang: 'ko',
  Hebr: 'he',
  Grek: 'el',
  Thai: 'th',
  Beng: 'bn',
  Taml: 'ta',
  Telu: 'te',
  Knda: 'kn',
  Mlym: 'ml',
  Gujr: 'gu',
  Guru: 'pa',
  Geor: 'ka',
  Armn: 'hy',
  Ethi: 'am',
  Mymr: 'my',
  Sinh: 'si',
  Orya: 'or',
  Deva: 'hi',
};

/** Frequent function words per language, space-separated (kept as strings so the table stays compact). */
const STOPWORDS: Record<string, string[]> = Object.fromEntries(
  Object.entries({
    en: 'the a an and is are of to in that it you this with for was have not be on my what hello i at by from or but he she they we his her its will can do if so as',
    es: 'el la los las de que y es en un una por con para no esta hola mi su como',
    fr: 'le la les de des et est un une que qui dans pour pas je vous nous bonjour ce avec',
    de: 'der die das und ist nicht ich sie ein eine zu mit den dem auf für hallo auch es wir',
    it: 'il lo la gli di che e è un una per non con sono ciao questo mi del della io',
    pt: 'o a os as de que e é um uma para não com em do da olá você eu isso',
    nl: 'de het een en is van dat niet ik je met op voor zijn hallo wat dit ook maar wij',
    sv: 'och att det är en ett som på jag inte för med hej har av den du vi till min',
    pl: 'i w nie się na to jest że z do jak ale czy cześć mój ten tak po co od',
    tr: 've bir bu da de için ile çok ben sen merhaba değil ne olarak gibi var daha mi o her',
    id: 'dan yang di ini itu dengan untuk tidak saya anda ada dari akan halo kami ke juga bisa sudah suara',
    vi: 'và là của có không một những này tôi bạn được cho với chào các người đã trong để xin',
    ru: 'и в не на я что он с это как по но вы мы привет здравствуйте мой так все она',
    uk: 'і в не на я що це як але ви ми привіт вітаю мій та з до його її є',
  }).map(([lang, words]) => [lang, words.split(' ')]),
);

const STOPWORD_SETS = new Map(Object.entries(STOPWORDS).map(([lang, words]) => [lang, new Set(words)]));

/** Characters used only (or nearly only) in written Cantonese. */
const CANTONESE = /[嘅咗唔係冇哋喺嚟啲佢噉咁嘢睇乜嗰]/u;
/** Common traditional-only characters. */
const TRADITIONAL = /[們這個說時會來對為麼還嗎讀聲業國學體]/u;

/** Each character's script, found once: the server asks on its event loop for every request's text. */
const SCRIPT_OF = new Map<number, string | null>();
function scriptOf(ch: string, code: number): string | null {
  // ASCII: Latin letters, and nothing else has a script here (digits, spaces and punctuation are Common).
  if (code < 0x80) return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) ? 'Latn' : null;
  let name = SCRIPT_OF.get(code);
  if (name === undefined) {
    name = SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? null;
    // Bounded: a text of rare characters cannot grow it without end.
    if (SCRIPT_OF.size < 65_536) SCRIPT_OF.set(code, name);
  }
  return name;
}

export function detectLanguage(text: string): DetectedLanguage {
  const scripts: Record<string, number> = {};
  for (const ch of text) {
    const name = scriptOf(ch, ch.codePointAt(0)!);
    if (name) scripts[name] = (scripts[name] ?? 0) + 1;
  }
  // One Han, kana or Hangul character carries about as much as a short Latin word.
  const weight = (s: string): number =>
    (scripts[s] ?? 0) * (s === 'Hani' || s === 'Hira' || s === 'Kana' || s === 'Hang' ? 3 : 1);
  const total = Object.keys(scripts).reduce((a, s) => a + weight(s), 0);
  if (total === 0) return { language: 'und', confidence: 0, scripts };
  const kana = weight('Hira') + weight('Kana');
  const cjk = weight('Hani') + kana;
  const ranked = Object.keys(scripts).sort((a, b) => weight(b) - weight(a));
  const top = ranked[0]!;
  const share = (n: number): number => Math.min(1, n / total);

  if (kana > 0 && cjk >= total * 0.5) return { language: 'ja', confidence: share(cjk), scripts };
  if (top === 'Hani' || (cjk >= total * 0.5 && cjk > 0)) {
    const lang = CANTONESE.test(text) ? 'yue' : TRADITIONAL.test(text) ? 'zh-TW' : 'zh-CN';
    return { language: lang, confidence: share(weight('Hani')), scripts };
  }
  if (SCRIPT_LANGUAGE[top]) return { language: SCRIPT_LANGUAGE[top]!, confidence: share(weight(top)) * 0.95, scripts };
  if (top === 'Arab') {
    const lang = /[پچژگ]/u.test(text) ? (/[ٹڈڑںھے]/u.test(text) ? 'ur' : 'fa') : 'ar';
    return { language: lang, confidence: share(weight(top)) * 0.9, scripts };
  }
  if (top === 'Latn' || top === 'Cyrl') return byStopwords(text, top, share(weight(top)), scripts);
  return { language: 'und', confidence: 0, scripts };
}

function byStopwords(text: string, script: string, share: number, scripts: Record<string, number>): DetectedLanguage {
  // Words are runs of letters; a run with digits in it is a code (order numbers, ids, "4o2e45o8a8n"), not words, so
  // its letters never vote (they would read as "o", "e", "a": Portuguese articles).
  const words = (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((w) => !/\p{N}/u.test(w));
  const candidates = Object.keys(STOPWORDS).filter((l) => (script === 'Cyrl') === (l === 'ru' || l === 'uk'));
  const scores = candidates.map((l) => {
    const set = STOPWORD_SETS.get(l)!;
    return { l, n: words.filter((w) => set.has(w)).length };
  });
  scores.sort((a, b) => b.n - a.n);
  const best = scores[0];
  const second = scores[1]?.n ?? 0;
  if (!best || best.n === 0)
    return { language: script === 'Cyrl' ? 'ru' : 'und', confidence: script === 'Cyrl' ? 0.4 : 0, scripts };
  // Confidence grows with evidence and with the margin over the runner-up.
  const evidence = Math.min(1, best.n / Math.max(3, words.length * 0.25));
  const margin = (best.n - second) / best.n;
  return { language: best.l, confidence: share * evidence * (0.5 + 0.5 * margin), scripts };
}

export interface LanguageCheck {
  ok: boolean;
  detected: DetectedLanguage;
}

/**
 * Whether a voice covers a text: unsure detections pass (never refuse on a guess); a confident
 * detection must share its language family with one of the voice's languages.
 */
export function checkLanguage(text: string, voiceLanguages: string[], minConfidence = 0.5): LanguageCheck {
  const detected = detectLanguage(text);
  if (detected.language === 'und' || detected.confidence < minConfidence) return { ok: true, detected };
  const family = languageFamily(detected.language);
  const ok = voiceLanguages.some((l) => languageFamily(l) === family);
  return { ok, detected };
}
