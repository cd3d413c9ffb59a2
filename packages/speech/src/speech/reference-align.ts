/**
 * Word times for the sentences of an engine that reports none: an eSpeak NG rendering of the same text (its word
 * events known) aligned to the sentence's audio by dynamic time warping of their cepstra (pipeline/dtw-align.ts).
 */
import { concatFloat32 } from '../dsp/pcm.ts';
import { resamplePolyphase } from '../formats/polyphase.ts';
import { alignByReference } from '../pipeline/dtw-align.ts';
import { makePlan, type Plan, type PlanContext } from '../pipeline/plan.ts';
import { trimWordSilences } from '../pipeline/timings.ts';
import type { VoiceInfo, WordTiming } from '../core/types.ts';
import { synthesizeChunks, type ChunkContext } from './chunks.ts';

/** Rates a reference rendering is kept at, as its engine made it. */
const REFERENCE_RATES = [16_000, 22_050, 24_000, 32_000, 44_100, 48_000];

export interface ReferenceDeps {
  chunks: ChunkContext;
  plans: PlanContext;
  /** The eSpeak NG voice of a language (planning made sure there is one). */
  referenceVoice(language: string): VoiceInfo | undefined;
}

/** A reference rendering of `text`: its samples at the engine's own rate and its word events. */
export async function renderReference(deps: ReferenceDeps, text: string, language: string, signal?: AbortSignal) {
  const voice = deps.referenceVoice(language)!;
  const plan = makePlan({ text, voice, language, format: 'pcm', checkLanguage: false }, deps.plans);
  const parts: Float32Array[] = [];
  const words: WordTiming[] = [];
  let at = 0;
  let rate = 0;
  // At the engine's own rate: the aligner reads features at any rate, so no resampling is spent on a reference.
  for await (const s of synthesizeChunks(deps.chunks, plan, signal, undefined, { keepRates: REFERENCE_RATES })) {
    rate ||= s.sampleRate;
    const pcm = resamplePolyphase(s.samples, s.sampleRate, rate);
    for (const w of s.words ?? []) words.push({ word: w.word, start: w.start + at, end: w.end + at });
    parts.push(pcm);
    at += pcm.length / rate;
  }
  return { samples: concatFloat32(parts), sampleRate: rate, words };
}

/**
 * The references of a plan's sentences, each started a couple of sentences ahead of the one being aligned (so it
 * is made while the engine speaks), then aligned to that sentence's audio.
 */
export function referenceAligner(deps: ReferenceDeps, plan: Plan, signal?: AbortSignal) {
  const started = new Map<number, ReturnType<typeof renderReference>>();
  const start = (i: number) => {
    if (i >= plan.sentences.length || started.has(i)) return;
    const p = renderReference(deps, plan.sentences[i]!, plan.language, signal);
    p.catch(() => {});
    started.set(i, p);
  };
  start(0);
  start(1);
  return async (index: number, produced: { samples: Float32Array; sampleRate: number }): Promise<WordTiming[]> => {
    start(index);
    start(index + 1);
    start(index + 2);
    const reference = await started.get(index)!;
    started.delete(index);
    return trimWordSilences(produced.samples, produced.sampleRate, alignByReference(produced, reference));
  };
}

export type Aligner = ReturnType<typeof referenceAligner>;
