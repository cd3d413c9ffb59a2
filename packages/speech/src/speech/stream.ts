/**
 * A stream: the cache's bytes, or the encoder's bytes as each sentence is encoded. A local engine's first sentence is
 * sent as the engine makes it (its first fraction of a second leaves before the sentence is complete); with timings,
 * each sentence's alignment is handed on before the rest of its audio.
 */
import type { StreamEncoder } from '../audio/encoder-host.ts';
import { concatFloat32 } from '../dsp/pcm.ts';
import { resamplePolyphase } from '../formats/polyphase.ts';
import type { SynthesisRequest } from '../pipeline/plan.ts';
import { timingsOf, type SentenceTiming } from '../pipeline/timings.ts';
import type { WordTiming } from '../core/types.ts';
import type { SynthesisJob as SentenceJob, SynthesisResult as PoolResult } from '../pool/protocol.ts';
import { aheadMessages } from './ahead.ts';
import { joined, sentenceJob, synthesizeChunks } from './chunks.ts';
import { FIRST_SLICE_SEC, inPool, keepRates, type SynthesisContext } from './context.ts';

export async function* synthesizeStream(s: SynthesisContext, req: SynthesisRequest): AsyncIterable<Buffer> {
  const plan = s.planner.planOf(req);
  const key = s.cache.keyOf(plan);
  // The cache keeps audio, not timings: a stream with timings makes its audio again (the same audio).
  const hit = await s.cache.get(req, plan, key);
  if (hit) {
    for (let i = 0; i < hit.audio.length; i += 64 * 1024) yield hit.audio.subarray(i, i + 64 * 1024);
    return;
  }
  // Timings as the stream goes: each sentence placed at its offset, the alignment so far handed on before the rest of
  // its audio (a first sentence's first fraction of a second leaves before its words are known).
  const timed = req.timings ? req.onTimings : undefined;
  const align = timed && !s.library.timedEngine(plan.voice.engine) ? s.aligner(plan, req.signal) : undefined;
  // The text's part of the timings is made once; each sentence adds its times (pipeline/timings.ts).
  const timings = timed ? timingsOf(req.text, plan.text, plan.spoken, plan.marks) : undefined;
  const placed: SentenceTiming[] = [];
  let at = 0;
  // The stream's rate is its first sentence's (an engine's own, or the configured one). The encoder
  // is opened at once with the rate this engine gave last time, while the sentence is synthesized,
  // and opened again only if the guess was wrong.
  const rateKey = `${plan.voice.engine}\u0000${plan.format}`;
  let rate = 0;
  let opened = s.streamRates.get(rateKey) ?? s.sampleRate;
  const mark = s.markOf(key);
  let stream: StreamEncoder = s.threads.encoder.stream(plan.format, opened, false, mark);
  const out: Buffer[] = [];
  let samples = 0;
  let complete = false;
  let head: Float32Array | undefined;
  /** The stream's rate, from its first sentence's: the encoder is opened again if it guessed another. */
  const rateFrom = (first: number): void => {
    if (rate) return;
    rate = first;
    s.streamRates.set(rateKey, rate);
    if (head) rate = opened;
    else if (rate !== opened) {
      stream.abort();
      stream = s.threads.encoder.stream(plan.format, rate, false, mark);
      opened = rate;
    }
  };
  /** Writes samples to the stream's encoder, in order; each write's bytes are yielded as it returns them. */
  async function* write(...pieces: Float32Array[]): AsyncGenerator<Buffer> {
    const writes = pieces.filter((p) => p.length).map((p) => stream.write(p));
    for (const w of writes) w.catch(() => {});
    for (const w of writes)
      for (const b of await w) {
        out.push(b);
        yield b;
      }
  }
  /** A sentence's timings placed (its audio `length` samples long), handed on before the rest of its audio. */
  const place = async (index: number, text: string, pcm: Float32Array, length: number, words: WordTiming[] = []) => {
    if (!timed || !timings) return;
    const sentenceWords = align ? await align(index, { samples: pcm, sampleRate: rate }) : words;
    placed.push({ text, start: at, duration: length / rate, words: sentenceWords });
    at += length / rate;
    // The sentences still to come sit at the end, with no length: their characters are not known yet.
    const toCome = plan.sentences.slice(placed.length).map((t) => ({ text: t, start: at, duration: 0, words: [] }));
    timed({ ...timings.build([...placed, ...toCome], at), known: timings.covered(placed) });
  };
  try {
    // A label at the start leaves first, at the rate the encoder opened with; the speech is then brought to it.
    head = await s.labelAt(plan, 'start', opened, req.signal);
    if (head) {
      samples += head.length;
      at += head.length / opened;
      yield* write(head);
    }
    const words = timed !== undefined;
    // A local engine's first sentence is sent as the engine makes it: its first fraction of a second leaves before
    // the sentence is complete (and before its words are known); a marked-up plan's pieces take the ordinary path.
    const ahead = inPool(s, plan) && !plan.parts;
    if (ahead) {
      const learnt = s.gains.get(plan);
      const job: SentenceJob = {
        ...sentenceJob(s.chunks, plan, plan.sentences[0]!, { ...keepRates(s, plan.format), words }, 0),
        // After a label the speech comes at the rate the label went at.
        ...(head ? { sampleRate: opened, keepRates: [opened] } : {}),
        ...(learnt !== undefined ? { gainDb: learnt } : {}),
      };
      const got: Float32Array[] = [];
      let whole: Float32Array | undefined;
      let written = 0;
      const messages = aheadMessages(s.threads.pool, job, req.signal);
      let result: PoolResult;
      for (;;) {
        const n = await messages.next();
        if (n.done) {
          result = n.value;
          break;
        }
        const m = n.value;
        if (m.type === 'open' || m.type === 'whole') rateFrom(m.sampleRate);
        if (m.type === 'whole') whole = m.samples;
        if (m.type !== 'pcm') continue;
        got.push(m.samples);
        // The part sent ahead is encoded at once (a copy: the encoder takes its buffer); the rest waits for the end.
        if (written < Math.round(FIRST_SLICE_SEC * rate)) {
          written += m.samples.length;
          yield* write(m.samples.slice());
        }
      }
      s.gains.learn(plan, result.gainDb);
      req.onProgress?.({ done: 1, total: plan.sentences.length });
      // The sentence as it goes into the file: its edge silence trimmed and its pause after it (chunks.ts).
      const full = whole ?? concatFloat32(got);
      const joinedFirst = joined(plan, 0, full, rate, result.words);
      const pcm = joinedFirst.samples;
      // What was sent ahead stays: past the sentence's trimmed end it was quiet, and it shortens the pause.
      const length = Math.max(written, pcm.length);
      samples += length;
      await place(0, plan.sentences[0]!, pcm, length, joinedFirst.words);
      const rest = pcm.subarray(Math.min(written, pcm.length));
      // Nothing went ahead (no learnt gain yet): the sentence's first fraction of a second is encoded first.
      const cut = written ? rest.length : Math.min(rest.length, Math.round(FIRST_SLICE_SEC * rate));
      yield* write(rest.subarray(0, cut), rest.subarray(cut));
    }
    const opts = ahead
      ? { from: 1, ...keepRates(s, plan.format), words }
      : // The first sentence runs alone, so the first bytes come as soon as one sentence could.
        { firstAlone: true, ...keepRates(s, plan.format), words };
    for await (const c of synthesizeChunks(s.chunks, plan, req.signal, req.onProgress, opts)) {
      rateFrom(c.sampleRate);
      const pcm = resamplePolyphase(c.samples, c.sampleRate, rate);
      samples += pcm.length;
      await place(c.index, c.text, pcm, pcm.length, c.words);
      // The first sentence goes to the encoder in two writes: the bytes of its first fraction of a
      // second are out while the rest is encoded, instead of after the whole sentence.
      const cut = c.index === 0 ? Math.min(pcm.length, Math.round(FIRST_SLICE_SEC * rate)) : pcm.length;
      yield* write(pcm.subarray(0, cut), pcm.subarray(cut));
    }
    rate ||= opened;
    const tail = await s.labelAt(plan, 'end', rate, req.signal);
    if (tail) {
      samples += tail.length;
      yield* write(tail);
    }
    for (const b of await stream.end()) {
      out.push(b);
      yield b;
    }
    complete = true;
  } finally {
    if (!complete) stream.abort();
  }
  // A streamed WAV has an open-ended header; only formats whose stream equals the file are cached.
  if (plan.format !== 'wav')
    await s.cache.set(req, plan, key, { audio: Buffer.concat(out), durationSec: samples / rate, sampleRate: rate });
}
