/**
 * A marked-up request's plan: each part of the markup goes through the dictionaries (its own rules first), the
 * normaliser of the language it is spoken in and the sentence splitter, and its sentences carry the part's settings;
 * the last of them the part's pause. Timings map back through both replacements (markup, then dictionaries).
 */
import { languageFamily } from '../catalogue/languages.ts';
import { phonemeLanguageOf, phoneSetOf } from '../text/engine-phones.ts';
import { applyLexicon, type LexiconRule, type ReplacedSpan } from '../text/lexicon.ts';
import { composeSpans, type MarkupDocument, type MarkupPart } from '../text/markup.ts';
import { cleanText, normalizeText } from '../text/normalize.ts';
import { sayAs } from '../text/say-as.ts';
import { splitSentences } from '../text/segment.ts';
import type { VoiceInfo, VoiceProfile } from '../core/types.ts';
import { sentenceEnds, strongerEnd, type SentenceEnd } from './pauses.ts';

/** A voice of an engine that speaks a language (`PlanContext.findLanguageVoice`). */
type FindLanguageVoice = (engine: string, language: string) => VoiceInfo | undefined;

/** How one sentence of a marked-up plan is spoken, beside the plan's own settings. */
export interface SentencePart {
  /** Another voice (`<lang>`): of the same engine, speaking `language`. */
  voice?: VoiceInfo;
  profile?: VoiceProfile;
  language?: string;
  rate?: number;
  pitch?: number;
  volume?: number;
  /** Silence before it (a break at the very start) and after it, in milliseconds. */
  leadMs?: number;
  pauseMs?: number;
}

interface MarkupPlan {
  text: string;
  sentences: string[];
  ends: SentenceEnd[];
  parts: SentencePart[];
  spoken: { text: string; spans: ReplacedSpan[] };
  /** What rules put in beyond the words they replace, not priced (`AppliedLexicon.added`). */
  added: number;
  pronunciationFallbacks: string[];
  marks: MarkupDocument['marks'];
}

/** The voice and language a part is spoken with: the plan's, or for `<lang>` a voice of that language. */
function voiceOf(
  part: MarkupPart,
  voice: VoiceInfo,
  language: string,
  find?: FindLanguageVoice,
): Pick<SentencePart, 'voice' | 'profile' | 'language'> {
  const wanted = part.language;
  if (!wanted) return {};
  const family = languageFamily(wanted);
  const own =
    voice.languages.find((l) => l.toLowerCase() === wanted.toLowerCase()) ??
    voice.languages.find((l) => languageFamily(l) === family);
  if (own) return own === language ? {} : { language: own };
  const other = find?.(voice.engine, wanted);
  if (!other) return {};
  const lang = other.languages.find((l) => languageFamily(l) === family) ?? wanted;
  if (voice.engine === 'espeak') {
    // eSpeak NG: the same variant (its +m3, +f2 …) on the other language's voice, the profile kept.
    const plus = voice.variant.indexOf('+');
    const variant = other.variant.split('+')[0]! + (plus >= 0 ? voice.variant.slice(plus) : '');
    return { voice: { ...voice, variant, languages: [lang] }, language: lang };
  }
  return { voice: other, profile: other.profile, language: lang };
}

export function planMarkup(
  doc: MarkupDocument,
  opts: {
    voice: VoiceInfo;
    language: string;
    /** `off`: the text as written (whitespace cleaned). */
    normalization: string;
    lexicon: readonly LexiconRule[];
    findLanguageVoice?: FindLanguageVoice | undefined;
  },
): MarkupPlan {
  const sentences: string[] = [];
  const ends: SentenceEnd[] = [];
  const parts: SentencePart[] = [];
  const fallbacks: string[] = [];
  const lexSpans: ReplacedSpan[] = [];
  let spoken = '';
  let added = 0;
  let lead = 0;
  let start = 0;
  for (const part of doc.parts) {
    const slice = doc.written.slice(start, part.end);
    const spoke = voiceOf(part, opts.voice, opts.language, opts.findLanguageVoice);
    const language = spoke.language ?? opts.language;
    const forced = doc.rules
      .filter((r) => r.from >= start && r.to <= part.end)
      .map((r) => ({
        from: r.from - start,
        to: r.to - start,
        rule: r.sayAs
          ? {
              type: 'alias' as const,
              string_to_replace: '',
              alias: sayAs(doc.written.slice(r.from, r.to), r.sayAs.kind, language, r.sayAs.format),
            }
          : r.rule!,
      }));
    const lexicon = applyLexicon(slice, opts.lexicon, {
      phonemes: phoneSetOf(spoke.voice ?? opts.voice) ?? false,
      language: phonemeLanguageOf(spoke.voice ?? opts.voice),
      forced,
    });
    for (const s of lexicon.spoken.spans)
      lexSpans.push({
        from: s.from + start,
        to: s.to + start,
        spokenFrom: s.spokenFrom + spoken.length,
        spokenTo: s.spokenTo + spoken.length,
      });
    spoken += lexicon.spoken.text;
    added += lexicon.added;
    for (const f of lexicon.fallbacks) if (!fallbacks.includes(f)) fallbacks.push(f);
    const text = opts.normalization === 'off' ? cleanText(lexicon.text) : normalizeText(lexicon.text, language);
    const split = splitSentences(text);
    const said = split.map((s) => lexicon.restore(s));
    // The part's last sentence ends where the markup says (`</s>`, `</p>`), if that is longer than its punctuation.
    const partEnds = sentenceEnds(text, split);
    if (part.boundary && partEnds.length) partEnds.push(strongerEnd(partEnds.pop()!, part.boundary));
    ends.push(...partEnds);
    const settings: SentencePart = {
      ...spoke,
      ...(part.rate !== undefined && part.rate !== 1 ? { rate: part.rate } : {}),
      ...(part.pitch ? { pitch: part.pitch } : {}),
      ...(part.volume ? { volume: part.volume } : {}),
    };
    for (const s of said) {
      sentences.push(s);
      parts.push({ ...settings, ...(lead && parts.length === 0 ? { leadMs: lead } : {}) });
    }
    if (part.boundary && !said.length && ends.length) ends.push(strongerEnd(ends.pop()!, part.boundary));
    if (part.pauseMs) {
      const last = parts.at(-1);
      // A pause before any words is the file's lead; one after a part without words joins the sentence before.
      if (last) last.pauseMs = (last.pauseMs ?? 0) + part.pauseMs;
      else lead += part.pauseMs;
    }
    start = part.end;
  }
  return {
    text: joinSentences(sentences),
    sentences,
    ends,
    parts,
    spoken: { text: spoken, spans: composeSpans(doc.spans, lexSpans) },
    added,
    pronunciationFallbacks: fallbacks,
    marks: doc.marks,
  };
}

const UNSPACED_EDGE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/**
 * A plan's sentences as one text, exactly as the engines receive them (`POST /tts/normalize`): joined by a space, or
 * by nothing where both sides are Chinese or Japanese characters or their punctuation.
 */
export function joinSentences(sentences: readonly string[]): string {
  let out = '';
  for (const s of sentences) {
    if (out && !(UNSPACED_EDGE.test(out.at(-1)!) && UNSPACED_EDGE.test(s[0]!))) out += ' ';
    out += s;
  }
  return out;
}
