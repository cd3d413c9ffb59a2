/** One sentence through one engine and the DSP stage: the unit of work of the pool. */
import { splitSpeed, totalSemitones } from '../engines/pitch.ts';
import { conversionOf } from '../dsp/convert.ts';
import { concatFloat32 } from '../dsp/pcm.ts';
import type { Engine, EngineRequest, WordTiming } from '../core/types.ts';
import type { SynthesisJob, SynthesisResult } from './job.ts';
import { postProcess } from './post-process.ts';
import { trimWordSilences } from './timings.ts';

export async function runEngine(engine: Engine, job: SynthesisJob, signal?: AbortSignal): Promise<SynthesisResult> {
  const t0 = performance.now();
  const req: EngineRequest = {
    text: job.text,
    voice: job.voice,
    speed: job.speed,
    pitch: job.pitch,
    profile: job.profile,
    ...(job.language ? { language: job.language } : {}),
    ...(job.reference ? { reference: job.reference } : {}),
    ...(job.words ? { words: true } : {}),
    ...(signal ? { signal } : {}),
  };
  // Beyond the engine's native range (speeds up to 4 and down to 0.25), the DSP stage stretches the rest.
  const { speed, rest } = splitSpeed(req, engine.capabilities);
  req.speed = speed;
  const parts: Float32Array[] = [];
  const words: WordTiming[] = [];
  let rate = 0;
  let offset = 0;
  for await (const chunk of engine.synthesize(req)) {
    if (rate && chunk.sampleRate !== rate) throw new Error(`${engine.id}: sample rate changed within one sentence`);
    rate = chunk.sampleRate;
    for (const w of chunk.words ?? []) words.push({ word: w.word, start: w.start + offset, end: w.end + offset });
    parts.push(chunk.samples);
    offset += chunk.samples.length / chunk.sampleRate;
  }
  const t1 = performance.now();
  // A zero-shot model imitates its reference itself: converting its output as well would overshoot.
  const convert = req.reference ? undefined : conversionOf(req.profile, req.voice.profile, req.pitch);
  const out = await postProcess(
    { samples: concatFloat32(parts), sampleRate: rate || job.sampleRate, words },
    {
      speed: rest,
      semitones: engine.capabilities.nativePitch ? 0 : totalSemitones(req),
      loudness: job.loudness,
      sampleRate: job.sampleRate,
      ...(job.keepRates ? { keepRates: job.keepRates } : {}),
      ...(convert ? { convert } : {}),
    },
  );
  return {
    samples: out.samples,
    sampleRate: out.sampleRate,
    // A pause belongs between words, not to the word before it.
    words: out.words?.length ? trimWordSilences(out.samples, out.sampleRate, out.words) : [],
    engineMs: t1 - t0,
    dspMs: performance.now() - t1,
  };
}
