/**
 * A whole file: from the cache, or its sentences synthesized in the pool (or by a remote engine) and encoded as they
 * come, with the plan's label, its watermark and, when asked, its timings. A one-sentence mp3 or Ogg Opus file from a
 * local engine is encoded while its engine runs.
 */
import { MessageChannel } from 'node:worker_threads';
import type { StreamEncoder } from '../audio/encoder-host.ts';
import { concatFloat32, int16FromParts } from '../dsp/pcm.ts';
import { resamplePolyphase } from '../formats/polyphase.ts';
import type { Plan, SynthesisRequest } from '../pipeline/plan.ts';
import { buildTimings, type SentenceTiming } from '../pipeline/timings.ts';
import { CONTENT_TYPES, type WordTiming } from '../core/types.ts';
import type { SynthesisResult } from './api.ts';
import { sentenceJob, synthesizeChunks } from './chunks.ts';
import { inPool, keepRates, type SynthesisContext } from './context.ts';

/** Unmarked WAV and PCM files up to 30 s at 24 kHz (about 1 ms of work) are built on the calling thread, others in the encoder thread. */
const INLINE_PCM_SAMPLES = 720_000;

/**
 * A one-sentence mp3 or Ogg Opus file from a local engine: the pool worker sends the samples
 * straight to the encoder thread, which encodes them as the engine makes them (pool/streamed.ts).
 */
async function synthesizeOne(
  s: SynthesisContext,
  plan: Plan,
  req: SynthesisRequest,
): Promise<{ audio: Buffer; rate: number; length: number; words: WordTiming[]; encodedAhead: boolean }> {
  req.signal?.throwIfAborted();
  const known = s.gains.get(plan);
  const job = {
    ...sentenceJob(s.chunks, plan, plan.sentences[0]!, { ...keepRates(s, plan.format), words: req.timings === true }),
    ...(known !== undefined ? { gainDb: known } : {}),
  };
  const { port1, port2 } = new MessageChannel();
  // The worker marks the samples it sends (pool/streamed.ts), so the encoder takes them as they are.
  const file = s.threads.encoder.file(plan.format, port1);
  // Awaited once the sentence is done; a drop or failure before that must not go unhandled.
  file.audio.catch(() => {});
  // A caller who leaves while the sentence still waits for a worker takes it out of the queue.
  const sentence = s.threads.pool.synthesizeInto(job, port2, req.signal, s.markOf(s.cache.keyOf(plan)));
  const stop = (): void => file.drop();
  req.signal?.addEventListener('abort', stop, { once: true });
  try {
    const r = await sentence.catch((e: unknown) => {
      file.drop();
      throw e;
    });
    s.gains.learn(plan, r.gainDb);
    req.onProgress?.({ done: 1, total: 1 });
    const audio = await file.audio;
    req.signal?.throwIfAborted();
    return { audio, rate: r.sampleRate, length: r.length ?? 0, words: r.words, encodedAhead: r.streamed === true };
  } catch (e) {
    req.signal?.throwIfAborted();
    throw e;
  } finally {
    req.signal?.removeEventListener('abort', stop);
  }
}

export async function synthesizeWhole(s: SynthesisContext, req: SynthesisRequest): Promise<SynthesisResult> {
  const plan = s.planner.planOf(req);
  // Requests that carry a reference sample are never cached: the key does not cover the sample.
  const key = s.cache.keyOf(plan);
  const base = {
    format: plan.format,
    contentType: CONTENT_TYPES[plan.format],
    sampleRate: s.sampleRate,
    characters: plan.characters,
    language: plan.language,
    sentences: plan.sentences.length,
    cacheKey: key,
  };
  const mark = s.markOf(key);
  // The cache keeps audio, not timings: a request for timings makes its audio again (the same audio).
  const hit = await s.cache.get(req, plan, key);
  if (hit)
    return {
      ...base,
      sampleRate: hit.sampleRate,
      audio: hit.audio,
      durationSec: hit.durationSec,
      words: [],
      cached: true,
      mark: mark?.payload ?? null,
    };
  if (
    // A label is put together with the speech on this thread; the one-sentence file is encoded as its engine runs.
    // Timings come along when the engine reports word times (the reference aligner needs the samples here).
    !plan.aiLabel &&
    !plan.parts &&
    (!req.timings || s.library.timedEngine(plan.voice.engine)) &&
    plan.sentences.length === 1 &&
    (plan.format === 'mp3' || plan.format === 'opus') &&
    inPool(s, plan)
  ) {
    const one = await synthesizeOne(s, plan, req);
    const durationSec = one.length / one.rate;
    await s.cache.set(req, plan, key, { audio: one.audio, durationSec, sampleRate: one.rate });
    const sentence = { text: plan.sentences[0]!, start: 0, duration: durationSec, words: one.words };
    const timings = req.timings
      ? { timings: buildTimings(req.text, plan.text, [sentence], durationSec, plan.spoken, plan.marks) }
      : {};
    return {
      ...base,
      ...timings,
      sampleRate: one.rate,
      audio: one.audio,
      durationSec,
      words: one.words,
      cached: false,
      encodedAhead: one.encodedAhead,
      mark: mark?.payload ?? null,
    };
  }
  const words: WordTiming[] = [];
  const placed: SentenceTiming[] = [];
  const align = req.timings && !s.library.timedEngine(plan.voice.engine) ? s.aligner(plan, req.signal) : undefined;
  let offset = 0;
  // The first sentence's rate is the file's (an engine's own rate, or the configured one).
  let rate = 0;
  let length = 0;
  // mp3 and Ogg Opus are encoded sentence by sentence as they come, in the encoder thread: the
  // file is ready soon after its last sentence, and no PCM is gathered on this thread. So are marked WAV and PCM
  // files (marking is the encoder thread's work anyway): gathering them here cost a copy of the whole file's samples.
  const piecewise = plan.format === 'mp3' || plan.format === 'opus' || mark !== undefined;
  const parts: Float32Array[] = [];
  let file: StreamEncoder | undefined;
  const writes: Promise<Buffer[]>[] = [];
  const take = (pcm: Float32Array): void => {
    length += pcm.length;
    if (!piecewise) {
      parts.push(pcm);
      return;
    }
    file ??= s.threads.encoder.stream(plan.format, rate, true, mark);
    const w = file.write(pcm);
    w.catch(() => {});
    writes.push(w);
  };
  try {
    const opts = { ...keepRates(s, plan.format), words: req.timings === true };
    for await (const c of synthesizeChunks(s.chunks, plan, req.signal, req.onProgress, opts)) {
      rate ||= c.sampleRate;
      // The label is made at the file's rate, known with its first sentence; it goes in before it.
      const head = c.index === 0 ? await s.labelAt(plan, 'start', rate, req.signal) : undefined;
      if (head) {
        take(head);
        offset += head.length / rate;
      }
      for (const w of c.words ?? []) words.push({ word: w.word, start: w.start + offset, end: w.end + offset });
      const pcm = resamplePolyphase(c.samples, c.sampleRate, rate);
      if (req.timings) {
        const sentenceWords = align ? await align(c.index, c) : (c.words ?? []);
        placed.push({ text: c.text, start: offset, duration: pcm.length / rate, words: sentenceWords });
      }
      offset += c.samples.length / c.sampleRate;
      take(pcm);
    }
    rate ||= s.sampleRate;
    const tail = await s.labelAt(plan, 'end', rate, req.signal);
    if (tail) take(tail);
    let audio: Buffer;
    if (file) {
      await Promise.all(writes);
      audio = Buffer.concat(await file.end());
    } else if ((plan.format === 'wav' || plan.format === 'pcm') && length <= INLINE_PCM_SAMPLES && !mark) {
      // A short unmarked WAV or PCM file is a copy with a conversion, well under a millisecond: built here, it saves
      // the two hand-overs to the encoder thread. Marking one is milliseconds of CPU (about 7 ms for 30 s), which
      // would hold up the event loop: a marked file is built in the encoder thread, as every longer one is.
      audio = int16FromParts(parts, rate, plan.format === 'wav');
    } else {
      // Everything else is built in the encoder thread: even a WAV of minutes is work off the event loop.
      audio = await s.threads.encoder.encode(concatFloat32(parts), rate, plan.format, mark);
    }
    const durationSec = length / rate;
    await s.cache.set(req, plan, key, { audio, durationSec, sampleRate: rate });
    const timings = req.timings
      ? { timings: buildTimings(req.text, plan.text, placed, durationSec, plan.spoken, plan.marks) }
      : {};
    return { ...base, sampleRate: rate, audio, durationSec, words, ...timings, cached: false, mark: mark?.payload ?? null };
  } catch (e) {
    file?.abort();
    throw e;
  }
}
