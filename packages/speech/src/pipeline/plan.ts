/** From a request to a plan: validation, voice and profile, language, normalized sentences. */
import { languageFamily } from '../catalogue/languages.ts';
import { SpeechError } from '../core/errors.ts';
import { checkLanguage } from '../text/detect-language.ts';
import { phonemeLanguageOf, phoneSetOf } from '../text/engine-phones.ts';
import { applyLexicon, type AppliedLexicon, type LexiconRule } from '../text/lexicon.ts';
import { unlabelledText, type MarkupDocument } from '../text/markup.ts';
import { joinSentences, planMarkup, type SentencePart } from './plan-markup.ts';
import { cleanText, countCharacters, normalizeText } from '../text/normalize.ts';
import { splitSentences } from '../text/segment.ts';
import { sentenceEnds, type SentenceEnd } from './pauses.ts';
import { AUDIO_FORMATS, type AudioFormat, type EngineRequest, type VoiceInfo, type VoiceProfile } from '../core/types.ts';
import { AI_LABEL_KINDS, AI_LABEL_POSITIONS, type AiLabel } from './ai-label.ts';

export interface SynthesisRequest {
  text: string;
  /** A library voice; or pass `voice` for one the caller defines (clone, designed voice). */
  voiceId?: string;
  voice?: VoiceInfo;
  /** Overrides the voice's own profile (a mix, a designed or cloned voice). */
  profile?: VoiceProfile;
  language?: string;
  format?: AudioFormat;
  /** 0.25–4 (OpenAI's range; Polyvox's own routes take 0.5–2). */
  speed?: number;
  /** Semitones, -12..12. */
  pitch?: number;
  /** Reference audio for engines that clone natively. */
  reference?: EngineRequest['reference'];
  /** Refuse text in a language the voice does not speak (default true). */
  checkLanguage?: boolean;
  /** The explicit AI label heard in the audio (GB 45438-2025): the rhythm cue or a spoken notice, before or after. */
  aiLabel?: AiLabel;
  /** Align the text to the audio (`SynthesisResult.timings`); refused for a voice whose engine reports no word times. */
  timings?: boolean;
  /**
   * Pronunciation rules (the request's dictionaries, in order): applied to the text before anything else reads it
   * (`text/lexicon.ts`). The price still counts the text as sent.
   */
  lexicon?: LexiconRule[];
  /**
   * ElevenLabs' `apply_text_normalization`: `auto` (the default) and `on` read numbers, dates, money, units and
   * abbreviations as words (English and Chinese; other languages keep their digits); `off` passes the text as written
   * (whitespace cleaned and sentences split only), for text already written out or an engine that reads digits itself.
   */
  normalization?: TextNormalization;
  /**
   * The request's text read as markup (SSML, or ElevenLabs' breaks in plain text: the server reads it): `text` stays
   * the request's own (timings map back to it); what is spoken, priced and how comes from here.
   */
  markup?: MarkupDocument;
  signal?: AbortSignal;
  /** Called as each sentence is synthesized (for progress of long texts). */
  onProgress?: (p: { done: number; total: number }) => void;
  /**
   * A stream with `timings`: called as each sentence's audio is about to leave, with the alignment so far (times from
   * the start of the audio; characters of sentences still to come sit at its end, `durationSec`, until theirs is known).
   */
  onTimings?: (t: import('./timings.ts').Timings) => void;
}

export const TEXT_NORMALIZATIONS = ['auto', 'on', 'off'] as const;
export type TextNormalization = (typeof TEXT_NORMALIZATIONS)[number];

export interface Plan {
  voice: VoiceInfo;
  profile: VoiceProfile;
  language: string;
  format: AudioFormat;
  speed: number;
  pitch: number;
  text: string;
  sentences: string[];
  /** How each sentence ends (parallel to `sentences`): the pause after it (`pipeline/pauses.ts`). Absent: by its punctuation. */
  ends?: SentenceEnd[];
  /** The user's text only: a label's notice is never counted (nor charged). */
  characters: number;
  /** Words of phoneme rules this voice's engine could not speak as phonemes (spoken by their alias, else as written). */
  pronunciationFallbacks: string[];
  /** With pronunciation rules: the text as spoken before normalization, and where each replaced span went (timings). */
  spoken?: AppliedLexicon['spoken'];
  /** With markup: each sentence's own settings and pauses (parallel to `sentences`). */
  parts?: SentencePart[];
  /** With markup: its `<mark>`s, at UTF-16 offsets of the request's text. */
  marks?: MarkupDocument['marks'];
  reference?: EngineRequest['reference'];
  aiLabel?: AiLabel;
}

/** The speeds a request may ask for: OpenAI's range. Engines render what they can natively, the rest is stretched. */
export const MIN_SPEED = 0.25;
export const MAX_SPEED = 4;

export interface PlanContext {
  findVoice(id: string): VoiceInfo | undefined;
  /** A voice of `engine` that speaks `language` (`<lang xml:lang>`), if it has one. */
  findLanguageVoice?(engine: string, language: string): VoiceInfo | undefined;
  maxTextLength: number;
}

export function invalid(field: string, rule: string): SpeechError {
  return new SpeechError('VALIDATION_FAILED', `${field}: ${rule}`, { params: { field, rule } });
}

/** A plan's sentences as one text, exactly as the engines receive them (`POST /tts/normalize`). */
export const spokenText = joinSentences;

/**
 * A voice the request carries (a designed or saved voice on its base, a stored job's) with what its engine says of it
 * now: whether it takes phonemes is the engine's to tell, not the copy's. A copy stored before the voice had a
 * `phonemes` field (a job queued then) would otherwise make its rules fall back; a copy of a model since replaced by
 * one that takes none would hand it phonemes it reads as letters.
 */
function withEngineFacts(carried: VoiceInfo, ctx: PlanContext): VoiceInfo {
  const live = ctx.findVoice(carried.id);
  if (
    !live ||
    live.engine !== carried.engine ||
    (live.phonemes === carried.phonemes && live.phonemeLanguage === carried.phonemeLanguage)
  )
    return carried;
  const { phonemes: _stale, phonemeLanguage: _staleLanguage, ...rest } = carried;
  return {
    ...rest,
    ...(live.phonemes ? { phonemes: live.phonemes } : {}),
    ...(live.phonemeLanguage ? { phonemeLanguage: live.phonemeLanguage } : {}),
  };
}

/**
 * Prices count the text as sent, not what a dictionary's aliases or phoneme strings (or SSML's `<phoneme ph>`) put in;
 * so what they add may make the text at most three times as long (and 100 characters more): beyond that, rules would
 * turn a few priced characters into minutes of unpriced speech (an alias of 500 characters on "a").
 */
export function maxAdded(characters: number): number {
  return 2 * characters + 100;
}

function checkAdded(added: number, characters: number): void {
  const max = maxAdded(characters);
  if (added > max) throw invalid('text', `pronunciation rules may add at most ${max} characters to it (these add ${added})`);
}

export function makePlan(req: SynthesisRequest, ctx: PlanContext): Plan {
  if (typeof req.text !== 'string' || !req.text.trim()) throw invalid('text', 'must not be empty');
  // What is spoken: the markup's text, or the request's.
  const said = req.markup ? req.markup.written : req.text;
  // Punctuation alone says nothing: refused before any charge rather than synthesized as silence (or, on GnuSpeech, failing).
  if (!/[\p{L}\p{N}]/u.test(said)) throw invalid('text', 'must contain words');
  const characters = req.markup ? req.markup.characters : countCharacters(req.text);
  if (characters > ctx.maxTextLength)
    throw new SpeechError('TEXT_TOO_LONG', `Text exceeds the limit of ${ctx.maxTextLength} characters`, {
      params: { maxLength: ctx.maxTextLength },
    });
  const format = req.format ?? 'mp3';
  if (!AUDIO_FORMATS.includes(format)) throw invalid('format', `one of ${AUDIO_FORMATS.join(', ')}`);
  const speed = req.speed ?? 1;
  if (!(speed >= MIN_SPEED && speed <= MAX_SPEED)) throw invalid('speed', `between ${MIN_SPEED} and ${MAX_SPEED}`);
  const pitch = req.pitch ?? 0;
  if (!(pitch >= -12 && pitch <= 12)) throw invalid('pitch', 'between -12 and 12 semitones');
  const label = req.aiLabel;
  if (label && !(AI_LABEL_KINDS.includes(label.kind) && AI_LABEL_POSITIONS.includes(label.position)))
    throw invalid('ai_label', `one of ${AI_LABEL_KINDS.join(', ')}, at the ${AI_LABEL_POSITIONS.join(' or ')}`);
  const voice = req.voice ? withEngineFacts(req.voice, ctx) : req.voiceId ? ctx.findVoice(req.voiceId) : undefined;
  if (!voice) throw new SpeechError('NOT_FOUND', `voice ${req.voiceId ?? ''} not found`, { params: { field: 'voice_id' } });

  let language = req.language;
  if (language && !voice.languages.some((l) => languageFamily(l) === languageFamily(language!))) {
    throw new SpeechError('LANGUAGE_UNSUPPORTED', `voice ${voice.id} does not speak ${language}`, { params: { language } });
  }
  if (!language) {
    // Marked-up parts in a language of their own (`<lang>`) are not the voice's to speak: the rest is judged.
    const judged = req.markup ? unlabelledText(req.markup) : said;
    const own = /[\p{L}\p{N}]/u.test(judged);
    const check = checkLanguage(own ? judged : said, voice.languages);
    if (!check.ok && req.checkLanguage !== false && own) {
      throw new SpeechError('LANGUAGE_UNSUPPORTED', `voice ${voice.id} does not speak ${check.detected.language}`, {
        params: { language: check.detected.language },
      });
    }
    const family = languageFamily(check.detected.language);
    language = voice.languages.find((l) => languageFamily(l) === family) ?? voice.languages[0] ?? 'en';
  }
  const normalization = req.normalization ?? 'auto';
  if (!TEXT_NORMALIZATIONS.includes(normalization))
    throw invalid('apply_text_normalization', `one of ${TEXT_NORMALIZATIONS.join(', ')}`);
  const common = {
    voice,
    profile: req.profile ?? voice.profile,
    language,
    format,
    speed,
    pitch,
    characters,
    ...(req.reference ? { reference: req.reference } : {}),
    ...(label ? { aiLabel: { kind: label.kind, position: label.position } } : {}),
  };
  if (req.markup) {
    const marked = planMarkup(req.markup, {
      voice,
      language,
      normalization,
      lexicon: req.lexicon ?? [],
      findLanguageVoice: ctx.findLanguageVoice,
    });
    if (!marked.sentences.length) throw invalid('text', 'nothing to read');
    const { added, ...plan } = marked;
    checkAdded(added, characters);
    return { ...common, ...plan };
  }
  // Dictionaries first: an alias is normalized as any text is; phonemes are kept from normalization by placeholders.
  const lexicon = req.lexicon?.length
    ? applyLexicon(req.text, req.lexicon, { phonemes: phoneSetOf(voice) ?? false, language: phonemeLanguageOf(voice) })
    : null;
  if (lexicon) checkAdded(lexicon.added, characters);
  const written = lexicon ? lexicon.text : req.text;
  let text = normalization === 'off' ? cleanText(written) : normalizeText(written, language);
  let sentences = splitSentences(text);
  const ends = sentenceEnds(text, sentences);
  if (lexicon) {
    text = lexicon.restore(text);
    sentences = sentences.map((s) => lexicon.restore(s));
  }
  if (!sentences.length) throw invalid('text', 'nothing to read');
  return {
    ...common,
    text,
    sentences,
    ends,
    pronunciationFallbacks: lexicon?.fallbacks ?? [],
    ...(lexicon && lexicon.matches > 0 ? { spoken: lexicon.spoken } : {}),
  };
}
