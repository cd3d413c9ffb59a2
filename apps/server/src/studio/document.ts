import { STUDIO_LIMITS } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { attribute, narratorFor, speakersOf } from './speakers.js';

/** A document read into a project's parts: its chapters of paragraphs, each with the speaker it claims. */
export interface ImportedDocument {
  title: string | null;
  author: string | null;
  cover: { data: Buffer; type: string } | null;
  /** `Narrator` or `旁白`, as the document's script is. */
  narrator: string;
  /** The narrator first, then every speaker found, in the order they first speak. */
  speakers: string[];
  chapters: { title: string; paragraphs: { text: string; speaker: string }[] }[];
}

export type DocumentLimits = Record<
  'maxCharacters' | 'maxChapters' | 'maxParagraphs' | 'paragraphMaxLength' | 'maxSpeakers',
  number
>;

/** Refusals of a document, naming the field the request sent it in. */
export const refuse = (field: string, rule: string, cause?: unknown) =>
  new AppError('VALIDATION_FAILED', { field, rule }, { cause });

const SENTENCE_END = /(?<=[.!?…。！？][”"’')\]）」』]?)\s+|(?<=[。！？][”’」』]?)(?![”’」』\s])/u;
/** Pieces of Chinese text are joined without a space. */
const join = (a: string, b: string) => (a ? (/[\p{Script=Han}。！？，”」』]$/u.test(a) ? `${a}${b}` : `${a} ${b}`) : b);

/** A paragraph longer than one request speaks, cut at sentence ends (else at a space, else anywhere) into pieces. */
export function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const pieces: string[] = [];
  let current = '';
  const push = () => {
    if (current.trim()) pieces.push(current.trim());
    current = '';
  };
  for (const sentence of text.split(SENTENCE_END)) {
    if (!sentence) continue;
    if (current && current.length + 1 + sentence.length > max) push();
    if (sentence.length <= max) {
      current = join(current, sentence);
      continue;
    }
    push();
    let rest = sentence;
    while (rest.length > max) {
      const space = rest.lastIndexOf(' ', max);
      const cut = space > max / 2 ? space : max;
      pieces.push(rest.slice(0, cut).trim());
      rest = rest.slice(cut).trim();
    }
    current = rest;
  }
  push();
  return pieces;
}

/**
 * Builds a document as an importer reads it, holding it to the limits as it grows, so an oversized book is refused
 * at the first paragraph past a limit rather than after it was read whole: more characters than a project holds is
 * TEXT_TOO_LONG, too many chapters or paragraphs VALIDATION_FAILED naming the limit.
 */
export class DocumentBuilder {
  private readonly chapters: { title: string | null; paragraphs: string[] }[] = [];
  private characters = 0;
  private paragraphs = 0;
  title: string | null = null;
  author: string | null = null;
  cover: { data: Buffer; type: string } | null = null;

  constructor(
    private readonly field: string,
    private readonly limits: DocumentLimits = STUDIO_LIMITS,
  ) {}

  /** Starts a chapter; one left without paragraphs (a part's title page) is dropped. */
  chapter(title: string | null): void {
    const last = this.chapters.at(-1);
    if (last && last.paragraphs.length === 0) {
      last.title = clean(title ?? '') || last.title;
      return;
    }
    if (this.chapters.length >= this.limits.maxChapters) throw refuse(this.field, `at most ${this.limits.maxChapters} chapters`);
    this.chapters.push({ title: clean(title ?? '') || null, paragraphs: [] });
  }

  paragraph(raw: string): void {
    const text = clean(raw);
    if (!text) return;
    this.characters += [...text].length;
    if (this.characters > this.limits.maxCharacters)
      throw new AppError('TEXT_TOO_LONG', { maxLength: this.limits.maxCharacters });
    if (this.chapters.length === 0) this.chapter(null);
    for (const piece of splitLong(text, this.limits.paragraphMaxLength)) {
      if (++this.paragraphs > this.limits.maxParagraphs)
        throw refuse(this.field, `at most ${this.limits.maxParagraphs} paragraphs`);
      this.chapters.at(-1)!.paragraphs.push(piece);
    }
  }

  /** The document with each paragraph's speaker; a document without a word is refused. */
  result(): ImportedDocument {
    const chapters = this.chapters.filter((c) => c.paragraphs.length > 0);
    if (chapters.length === 0) throw refuse(this.field, 'the document has no text');
    const narrator = narratorFor(chapters.flatMap((c) => c.paragraphs.slice(0, 20)).join('\n'));
    const out = chapters.map((c, i) => ({
      title: c.title ?? (chapters.length === 1 && this.title ? this.title : chapterName(narrator, i + 1)),
      paragraphs: c.paragraphs.map((p) => {
        const { speaker, text } = attribute(p);
        return { text, speaker: speaker ?? narrator };
      }),
    }));
    const speakers = speakersOf(
      narrator,
      out.flatMap((c) => c.paragraphs.map((p) => p.speaker)),
    );
    if (speakers.length > this.limits.maxSpeakers) throw refuse(this.field, `at most ${this.limits.maxSpeakers} speakers`);
    return { title: this.title, author: this.author, cover: this.cover, narrator, speakers, chapters: out };
  }
}

const chapterName = (narrator: string, n: number) => (narrator === '旁白' ? `第 ${n} 章` : `Chapter ${n}`);

/** Whitespace made single spaces, control characters and byte-order marks taken out. */
export function clean(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFEFF\u200B]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A blank project: one empty chapter, the narrator its only speaker (ElevenLabs makes one when given no content). */
export function emptyDocument(name: string): ImportedDocument {
  const narrator = narratorFor(name);
  return { title: null, author: null, cover: null, narrator, speakers: [narrator], chapters: [{ title: name, paragraphs: [] }] };
}
