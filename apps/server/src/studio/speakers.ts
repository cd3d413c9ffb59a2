/**
 * Who speaks a paragraph, read from the text itself:
 * - a speaker line, `Name: text` (one to three capitalised Latin words, or one to eight CJK characters, with `:` or the
 *   full-width `：`): the label is taken off and the rest is what the speaker says;
 * - quoted dialogue attributed to a character: `"…," said Anna`, `"…" Anna asked`, `Anna said, "…"`,
 *   `“……”小明说`, `小明笑着说：“……”`: the paragraph keeps its words (the narration in it is read by that voice too).
 * A paragraph neither claims is the narrator's.
 */

export const NARRATOR = { latin: 'Narrator', cjk: '旁白' } as const;

const LATIN_NAME = String.raw`[A-Z][\p{L}'’.-]*(?: [A-Z][\p{L}'’.-]*){0,2}`;
const CJK = String.raw`\p{Script=Han}`;
const SPEAKER_LINE = new RegExp(String.raw`^(${LATIN_NAME}|[${CJK}]{1,5})\s*[:：]\s*(\S[\s\S]*)$`, 'u');

const VERBS = [
  'said',
  'says',
  'asked',
  'asks',
  'replied',
  'answered',
  'whispered',
  'shouted',
  'cried',
  'called',
  'added',
  'muttered',
  'exclaimed',
  'yelled',
  'murmured',
  'continued',
  'laughed',
  'sighed',
].join('|');
const OPEN_QUOTE = `["“]`;
const CLOSE_QUOTE = `["”]`;
/** `"…," said Anna` and `"…" Anna said`. */
const LATIN_AFTER = new RegExp(
  String.raw`${CLOSE_QUOTE}\s*(?:(?:${VERBS})\s+(${LATIN_NAME})|(${LATIN_NAME})\s+(?:${VERBS}))\b`,
  'u',
);
/** `Anna said, "…"` at the start of the paragraph. */
const LATIN_BEFORE = new RegExp(String.raw`^(${LATIN_NAME})\s+(?:${VERBS})\s*[,:]\s*${OPEN_QUOTE}`, 'u');

const CJK_VERB = '(?:说道|问道|喊道|笑道|答道|叫道|回答|说|道|问|喊|答|叫)';
/** 笑着, 轻声, 冷冷地 …: how it is said, between the name and the verb. */
const CJK_MANNER = String.raw`(?:[${CJK}]{1,3}地|笑着|轻声|低声|大声|高声|小声|连忙|急忙|又|也|便|就)?`;
const CJK_AFTER = new RegExp(String.raw`[”」』]\s*([${CJK}]{1,4}?)${CJK_MANNER}${CJK_VERB}`, 'u');
const CJK_BEFORE = new RegExp(String.raw`^([${CJK}]{1,4}?)${CJK_MANNER}${CJK_VERB}\s*[:：，,]?\s*[“「『]`, 'u');

/** Words that open a speaker line without being anyone's name, and pronouns that name no one. */
const NOT_NAMES = new Set([
  'Note',
  'Notes',
  'Chapter',
  'Part',
  'Warning',
  'Tip',
  'Example',
  'Q',
  'A',
  'He',
  'She',
  'They',
  'It',
  'I',
  'We',
  'You',
  'His',
  'Her',
  'The',
  'Then',
  'But',
  'And',
  '他',
  '她',
  '它',
  '我',
  '你',
  '您',
  '他们',
  '她们',
  '我们',
  '你们',
  '注意',
  '注',
  '第一章',
]);

export interface Attributed {
  speaker: string | null;
  text: string;
}

const usable = (name: string | undefined): name is string => !!name && !NOT_NAMES.has(name) && !/\d/.test(name);

/** The speaker a paragraph claims (null: none) and the text to speak (a speaker line's label taken off). */
export function attribute(paragraph: string): Attributed {
  const text = paragraph.trim();
  // `他说：“…”` names no one: not a speaker line either.
  const before = CJK_BEFORE.exec(text) ?? LATIN_BEFORE.exec(text);
  if (before) return { speaker: usable(before[1]) ? before[1] : null, text };
  const line = SPEAKER_LINE.exec(text);
  if (line && usable(line[1]) && !/^\/\//.test(line[2]!)) return { speaker: line[1], text: line[2]!.trim() };
  const latin = LATIN_AFTER.exec(text);
  const latinName = latin?.[1] ?? latin?.[2];
  if (usable(latinName)) return { speaker: latinName, text };
  const cjk = CJK_AFTER.exec(text);
  if (usable(cjk?.[1])) return { speaker: cjk[1], text };
  return { speaker: null, text };
}

const HAN = /\p{Script=Han}/gu;
const LETTER = /\p{L}/gu;

/** The narrator's name in the document's script: 旁白 when most of its letters are Chinese characters. */
export function narratorFor(sample: string): string {
  const letters = sample.match(LETTER)?.length ?? 0;
  const han = sample.match(HAN)?.length ?? 0;
  return letters > 0 && han * 2 >= letters ? NARRATOR.cjk : NARRATOR.latin;
}

/** The speakers found, narrator first, then in the order they first speak. */
export function speakersOf(narrator: string, speakers: (string | null)[]): string[] {
  const seen = new Set<string>([narrator]);
  for (const s of speakers) if (s) seen.add(s);
  return [...seen];
}

/** Whether a line opens with a speaker's label (`Anna: …`, `小明：…`). */
export function isSpeakerLine(line: string): boolean {
  const m = SPEAKER_LINE.exec(line.trim());
  return !!m && usable(m[1]);
}

/**
 * The paragraphs of a block of lines: a script's lines (two or more speaker lines) one paragraph each, so each
 * speaker speaks their own; any other block one paragraph.
 */
export function paragraphsOf(lines: string[]): string[] {
  const kept = lines.map((l) => l.trim()).filter(Boolean);
  return kept.filter(isSpeakerLine).length >= 2 ? kept : kept.length ? [kept.join('\n')] : [];
}
