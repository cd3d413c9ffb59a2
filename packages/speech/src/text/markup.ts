/**
 * A marked-up request (SSML, or plain text with ElevenLabs' `<break time="1.5s" />`) as the plan reads it: the text
 * that is spoken, where each character of it came from in the request, and the parts it is spoken in, each with its
 * own voice settings and the silence after it. The server reads the markup into this shape; the plan renders it.
 */
import type { LexiconRule, ReplacedSpan } from './lexicon.ts';

/** A part's volume at which it is silent (`<prosody volume="silent">`). */
export const SILENT_DB = -120;

/** `<say-as interpret-as>` values read here. */
export const SAY_AS_KINDS = ['characters', 'spell-out', 'cardinal', 'ordinal', 'digits', 'date', 'time', 'telephone'] as const;
export type SayAsKind = (typeof SAY_AS_KINDS)[number];

/** A run of `written` spoken otherwise than as written: a phoneme or alias rule, or a `<say-as>`. */
export interface MarkupRule {
  from: number;
  to: number;
  rule?: LexiconRule;
  sayAs?: { kind: SayAsKind; format?: string };
}

/** Consecutive pieces of `written`, the first from 0: each with its settings, relative to the voice's own. */
export interface MarkupPart {
  /** One past its last unit in `written`. */
  end: number;
  /** `xml:lang`: spoken in this language (a voice of it where the engine has one). */
  language?: string;
  /** Speed multiplier (1: the request's speed). */
  rate?: number;
  /** Semitones added to the request's pitch. */
  pitch?: number;
  /** Gain in dB; `SILENT_DB` and below: silent. */
  volume?: number;
  /** Silence after it, in milliseconds (replacing the pause its ending would have). */
  pauseMs?: number;
  /** It ends a sentence (`</s>`) or a paragraph (`</p>`): the pause after it is at least theirs (`pipeline/pauses.ts`). */
  boundary?: 'sentence' | 'paragraph';
}

export interface MarkupDocument {
  /** The text the dictionaries and the normaliser read: the markup's text, entities decoded, elements' words in place. */
  written: string;
  /** The characters that are priced (see docs/pronunciation.md, "SSML"). */
  characters: number;
  /** Where the request's text went in `written` (`spokenFrom`/`spokenTo` are offsets in `written`): a tag to nothing, an entity to its character. */
  spans: ReplacedSpan[];
  rules: MarkupRule[];
  parts: MarkupPart[];
  /** `<mark name>`: at a UTF-16 offset of the request's text (the tag's own start). */
  marks: { name: string; at: number }[];
}

/** The text of the parts that name no language of their own: what the voice's language is judged by. */
export function unlabelledText(doc: MarkupDocument): string {
  let out = '';
  let start = 0;
  for (const part of doc.parts) {
    if (!part.language) out += doc.written.slice(start, part.end);
    start = part.end;
  }
  return out;
}

/** A point of a span list's source mapped to its target; `end`: the point closes a range. */
function forward(spans: readonly ReplacedSpan[], p: number, end: boolean): number {
  let shift = 0;
  for (const s of spans) {
    if (end ? p <= s.from : p < s.from || (p === s.from && s.to > s.from)) break;
    if (p < s.to) return end ? s.spokenTo : s.spokenFrom;
    shift = s.spokenTo - s.to;
  }
  return p + shift;
}

/** A point of a span list's target mapped back to its source. */
function backward(spans: readonly ReplacedSpan[], p: number, end: boolean): number {
  const inverted = spans.map((s) => ({ from: s.spokenFrom, to: s.spokenTo, spokenFrom: s.from, spokenTo: s.to }));
  return forward(inverted, p, end);
}

/**
 * Two replacements one after the other (`first`: request → written; `second`: written → spoken) as one (request →
 * spoken): where their spans overlap, the request's span takes everything the union became.
 */
export function composeSpans(first: readonly ReplacedSpan[], second: readonly ReplacedSpan[]): ReplacedSpan[] {
  const candidates: ReplacedSpan[] = [
    ...first.map((a) => ({
      from: a.from,
      to: a.to,
      spokenFrom: forward(second, a.spokenFrom, false),
      spokenTo: forward(second, a.spokenTo, true),
    })),
    ...second.map((b) => ({
      from: backward(first, b.from, false),
      to: backward(first, b.to, true),
      spokenFrom: b.spokenFrom,
      spokenTo: b.spokenTo,
    })),
  ].sort((x, y) => x.from - y.from || x.to - y.to);
  const out: ReplacedSpan[] = [];
  for (const c of candidates) {
    const last = out.at(-1);
    if (last && c.from < last.to) {
      last.to = Math.max(last.to, c.to);
      last.spokenFrom = Math.min(last.spokenFrom, c.spokenFrom);
      last.spokenTo = Math.max(last.spokenTo, c.spokenTo);
    } else out.push({ ...c });
  }
  return out;
}
