/**
 * One sentence made straight into a file's encoder: the pool worker sends its samples to the
 * encoder thread on a port of its own, so the main thread never carries PCM, and, when the engine
 * makes the sentence piece by piece (eSpeak), the encoder works while the engine still runs.
 *
 * Loudness normally needs the whole sentence before the first sample can be gained. Here each
 * piece is gained at once with the gain this voice needed before (`job.gainDb`, learnt by the
 * caller from earlier sentences), then limited and resampled exactly as the DSP stage would. Once
 * the sentence is complete its loudness is measured: within LOUDNESS_TOLERANCE_LU of the target,
 * what the encoder has is the file; otherwise the sentence is normalized as always and encoded
 * again from the start. So every file meets the target as closely as that tolerance, whatever the
 * guess was; a wrong guess only costs time.
 *
 * The watermark goes into the samples here, in the engine's thread, as they are sent. For short
 * speech eSpeak NG makes a sentence in about half the time LAME takes to encode it, so the encoder
 * thread is the one the file waits for: marking there added the embedder's whole cost to every
 * file, while here it fits in the engine thread's slack (the embedder gives the same samples
 * whatever the chunking, so the file is the one the encoder thread would have marked).
 */
import type { MessagePort } from 'node:worker_threads';
import type { ToFileSink } from '../audio/encoder-protocol.ts';
import { markSamples, type Mark } from '../audio/marked.ts';
import { transferList } from '../audio/transfer.ts';
import { concatFloat32 } from '../dsp/pcm.ts';
import { integratedLoudness, limit, LimiterStream, PEAK_CEILING_DBFS, TARGET_LUFS } from '../dsp/loudness.ts';
import { PolyphaseStream } from '../formats/polyphase.ts';
import { postProcess } from '../pipeline/post-process.ts';
import { runEngine } from '../pipeline/run-engine.ts';
import { trimWordSilences } from '../pipeline/timings.ts';
import type { Engine, EngineRequest, WordTiming } from '../core/types.ts';
import type { SynthesisJob, SynthesisResult } from './protocol.ts';
import { conversionOf } from '../dsp/convert.ts';
import { splitSpeed } from '../engines/pitch.ts';
import { WatermarkEmbedder } from '../watermark/index.ts';

/** How far from the target (LU) a sentence gained ahead of its measurement may end: EBU R 128's ±0.5 LU. */
export const LOUDNESS_TOLERANCE_LU = 0.5;
/** Samples are sent to the encoder in pieces of at least this many seconds. */
const SEND_SEC = 0.2;

/**
 * The job fields the piece-by-piece path knows how to honour. A job with any other field (a
 * processing step added later) takes the ordinary path, so nothing is skipped by accident.
 */
const KNOWN_FIELDS = new Set([
  'engine',
  'voice',
  'text',
  'language',
  'speed',
  'pitch',
  'profile',
  'sampleRate',
  'keepRates',
  'loudness',
  'gainDb',
]);

type Send = (msg: ToFileSink) => void;

function post(port: MessagePort, msg: ToFileSink): void {
  port.postMessage(msg, transferList(msg.type === 'pcm' || msg.type === 'whole' ? [msg.samples.buffer] : []));
}

/**
 * The sink's messages, their samples marked on the way: pieces through one embedder opened at the
 * file's rate (what it holds back goes out before `end`), a whole sentence at once (it replaces any
 * pieces, so their embedder is dropped).
 */
export function sender(port: MessagePort, mark: Mark | undefined): Send {
  if (!mark) return (msg) => post(port, msg);
  let embedder: WatermarkEmbedder | undefined;
  return (msg) => {
    if (msg.type === 'open') {
      embedder = new WatermarkEmbedder({ key: mark.key, payload: mark.payload, sampleRate: msg.sampleRate });
    } else if (msg.type === 'pcm') {
      if (!embedder) throw new Error('samples before the file was opened');
      const samples = embedder.push(msg.samples);
      if (!samples.length) return;
      msg = { type: 'pcm', samples };
    } else if (msg.type === 'end') {
      const rest = embedder?.end();
      if (rest?.length) post(port, { type: 'pcm', samples: rest });
    } else if (msg.type === 'whole') {
      embedder = undefined;
      msg = { ...msg, samples: markSamples(msg.samples, msg.sampleRate, mark) };
    }
    post(port, msg);
  };
}

/** A buffer the message can own whole (never a view into a bigger buffer, or a WASM heap). */
const owned = (s: Float32Array): Float32Array => (s.byteOffset === 0 && s.byteLength === s.buffer.byteLength ? s : s.slice());

/**
 * Synthesizes one sentence into the file encoder on `sink`, its samples carrying `mark` when given;
 * resolves with its words and length.
 */
export async function synthesizeInto(
  engine: Engine,
  job: SynthesisJob,
  sink: MessagePort,
  mark?: Mark,
): Promise<SynthesisResult> {
  const send = sender(sink, mark);
  try {
    if (piecewiseEligible(engine, job)) return await piecewiseInto(engine, job, send);
    // The ordinary path: the whole sentence through the DSP stage, then to the encoder at once.
    const r = await runEngine(engine, job);
    const length = r.samples.length;
    send({ type: 'whole', samples: owned(r.samples), sampleRate: r.sampleRate });
    return { ...r, samples: new Float32Array(0), length, streamed: false };
  } catch (e) {
    send({ type: 'fail' });
    throw e;
  }
}

/** Whether a sentence can be gained piece by piece as its engine makes it (else it takes the whole-sentence path). */
function piecewiseEligible(engine: Engine, job: SynthesisJob): boolean {
  return (
    job.loudness &&
    engine.capabilities.nativeSpeed &&
    // A speed beyond what the engine does natively is stretched by the DSP stage, on the whole sentence.
    splitSpeed(job, engine.capabilities).rest === 1 &&
    engine.capabilities.nativePitch &&
    Object.keys(job).every((k) => KNOWN_FIELDS.has(k)) &&
    // A designed or cloned voice's conversion stage needs the whole sentence: the ordinary path.
    conversionOf(job.profile, job.voice.profile, job.pitch) === undefined
  );
}

/**
 * Pieces are gained and sent while the engine runs when a gain is known (the sentence is measured
 * afterwards); without one, or from an engine that gives the sentence in one piece, the whole
 * sentence goes through the DSP stage and its gain is learnt.
 */
async function piecewiseInto(engine: Engine, job: SynthesisJob, send: Send): Promise<SynthesisResult> {
  const t0 = performance.now();
  const gainDb = job.gainDb !== undefined && Number.isFinite(job.gainDb) ? job.gainDb : undefined;
  const gain = Math.pow(10, Math.min(30, gainDb ?? 0) / 20);
  let limiter: LimiterStream | undefined;
  let resampler: PolyphaseStream | undefined;
  let rate = 0;
  let outRate = 0;
  const limited: Float32Array[] = [];
  let pending: Float32Array[] = [];
  let pendingLength = 0;
  let sent = 0;
  const flush = (): void => {
    if (!pendingLength) return;
    send({ type: 'pcm', samples: concatFloat32(pending) });
    sent += pendingLength;
    pending = [];
    pendingLength = 0;
  };
  const queue = (s: Float32Array): void => {
    if (!s.length) return;
    pending.push(s);
    pendingLength += s.length;
    if (pendingLength >= SEND_SEC * outRate) flush();
  };
  const onAudio = (piece: Float32Array, sampleRate: number): void => {
    if (!limiter) {
      rate = sampleRate;
      outRate = job.keepRates?.includes(rate) ? rate : job.sampleRate;
      limiter = new LimiterStream(rate, Math.pow(10, PEAK_CEILING_DBFS / 20));
      resampler = new PolyphaseStream(rate, outRate);
      send({ type: 'open', sampleRate: outRate });
    }
    const g = new Float32Array(piece.length);
    for (let i = 0; i < piece.length; i++) g[i] = piece[i]! * gain;
    const l = limiter.push(g);
    limited.push(l);
    queue(resampler!.push(l));
  };
  const req: EngineRequest = {
    text: job.text,
    voice: job.voice,
    speed: job.speed,
    pitch: job.pitch,
    profile: job.profile,
    ...(job.language ? { language: job.language } : {}),
    ...(job.words ? { words: true } : {}),
    ...(gainDb !== undefined ? { onAudio } : {}),
  };
  const parts: Float32Array[] = [];
  const words: WordTiming[] = [];
  let offset = 0;
  for await (const chunk of engine.synthesize(req)) {
    if (rate && chunk.sampleRate !== rate) throw new Error(`${engine.id}: sample rate changed within one sentence`);
    rate = chunk.sampleRate;
    for (const w of chunk.words ?? []) words.push({ word: w.word, start: w.start + offset, end: w.end + offset });
    parts.push(chunk.samples);
    offset += chunk.samples.length / chunk.sampleRate;
  }
  const raw = concatFloat32(parts);
  const t1 = performance.now();
  if (!limiter) {
    // Nothing came piece by piece: the ordinary DSP stage on the whole sentence.
    const out = await postProcess(
      { samples: raw, sampleRate: rate || job.sampleRate, words },
      {
        speed: 1,
        semitones: 0,
        loudness: true,
        sampleRate: job.sampleRate,
        ...(job.keepRates ? { keepRates: job.keepRates } : {}),
      },
    );
    const length = out.samples.length;
    send({ type: 'whole', samples: owned(out.samples), sampleRate: out.sampleRate });
    return finish(length, out.sampleRate, false, rate ? gainFor(raw, rate) : undefined);
  }
  const last = limiter.end();
  limited.push(last);
  queue(resampler!.push(last));
  queue(resampler!.end());
  flush();
  const measured = integratedLoudness(concatFloat32(limited), rate);
  if (Math.abs(measured - TARGET_LUFS) <= LOUDNESS_TOLERANCE_LU) {
    send({ type: 'end' });
    return finish(sent, outRate, true, gainDb! + (TARGET_LUFS - measured));
  }
  // Too far from the target: the sentence is normalized as always and the file made again.
  const out = await postProcess(
    { samples: raw, sampleRate: rate, words },
    {
      speed: 1,
      semitones: 0,
      loudness: true,
      sampleRate: job.sampleRate,
      ...(job.keepRates ? { keepRates: job.keepRates } : {}),
    },
  );
  const length = out.samples.length;
  send({ type: 'whole', samples: owned(out.samples), sampleRate: out.sampleRate });
  // Far off, the limiter's part is not first-order: the gain is learnt from the sentence itself.
  return finish(length, out.sampleRate, false, gainFor(raw, rate));

  function finish(length: number, sampleRate: number, streamed: boolean, learnt: number | undefined): SynthesisResult {
    return {
      samples: new Float32Array(0),
      sampleRate,
      // A pause belongs between words, not to the word before it (as on every other path).
      words: words.length ? trimWordSilences(raw, rate, words) : [],
      engineMs: t1 - t0,
      dspMs: performance.now() - t1,
      length,
      streamed,
      ...(learnt !== undefined ? { gainDb: learnt } : {}),
    };
  }
}

/**
 * The gain that, followed by the limiter, brings this sentence to the target: the gain to the
 * target, corrected by what the limiter then took back (to first order).
 */
function gainFor(raw: Float32Array, rate: number): number | undefined {
  const l = integratedLoudness(raw, rate);
  if (!Number.isFinite(l)) return undefined;
  const db = Math.min(30, TARGET_LUFS - l);
  const gain = Math.pow(10, db / 20);
  const gained = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) gained[i] = raw[i]! * gain;
  const after = integratedLoudness(limit(gained, rate, Math.pow(10, PEAK_CEILING_DBFS / 20)), rate);
  return Number.isFinite(after) ? db + (TARGET_LUFS - after) : db;
}

/** Seconds over which a stream's first sentence moves from the pieces sent ahead to the normalized sentence. */
const CROSSFADE_SEC = 0.02;

/**
 * A stream's first sentence, its first `aheadSec` seconds sent on `sink` as the engine makes them (`ToFileSink` messages,
 * unmarked: the stream's encoder marks them), so a stream's first bytes need not wait for the whole sentence.
 *
 * The pieces sent ahead are gained with the voice's learnt gain (`job.gainDb`) and limited and resampled exactly as in
 * `piecewiseInto`. The rest of the sentence is held until the sentence is complete and measured: within the loudness
 * tolerance it follows as it was made; otherwise the rest is the sentence normalized as always, taken over from the
 * pieces already sent with a short crossfade, so only the fraction of a second sent ahead kept the guessed gain. Without
 * a learnt gain (or on an engine that gives the sentence whole) the whole sentence goes through the DSP stage and is
 * sent as one `whole` message. Resolves with the words, the samples' count and the gain to learn.
 */
export async function synthesizeAhead(
  engine: Engine,
  job: SynthesisJob,
  sink: MessagePort,
  aheadSec: number,
): Promise<SynthesisResult> {
  const send = (msg: ToFileSink): void => post(sink, msg);
  try {
    return await aheadInto(engine, job, send, aheadSec);
  } catch (e) {
    send({ type: 'fail' });
    throw e;
  }
}

async function aheadInto(engine: Engine, job: SynthesisJob, send: Send, aheadSec: number): Promise<SynthesisResult> {
  const t0 = performance.now();
  // Words are gathered here as in `piecewiseInto`: a timed stream's first bytes do not wait for them either.
  const { words: _words, ...untimed } = job;
  const eligible = piecewiseEligible(engine, untimed);
  const gainDb = eligible && job.gainDb !== undefined && Number.isFinite(job.gainDb) ? job.gainDb : undefined;
  const gain = Math.pow(10, Math.min(30, gainDb ?? 0) / 20);
  let limiter: LimiterStream | undefined;
  let resampler: PolyphaseStream | undefined;
  let rate = 0;
  let outRate = 0;
  let aheadSamples = 0;
  const limited: Float32Array[] = [];
  /** What was made after the part sent ahead, held until the sentence is measured. */
  const held: Float32Array[] = [];
  let sent = 0;
  const out = (s: Float32Array): void => {
    if (!s.length) return;
    if (sent >= aheadSamples) {
      held.push(s);
      return;
    }
    // A copy: the piece may be the very array the loudness measurement keeps (a resampler at the engine's rate).
    const now = s.slice(0, aheadSamples - sent);
    const n = now.length;
    // The message takes the copy's buffer: its length reads 0 from here on.
    send({ type: 'pcm', samples: now });
    sent += n;
    if (n < s.length) held.push(s.subarray(n));
  };
  const onAudio = (piece: Float32Array, sampleRate: number): void => {
    if (!limiter) {
      rate = sampleRate;
      outRate = job.keepRates?.includes(rate) ? rate : job.sampleRate;
      aheadSamples = Math.round(aheadSec * outRate);
      limiter = new LimiterStream(rate, Math.pow(10, PEAK_CEILING_DBFS / 20));
      resampler = new PolyphaseStream(rate, outRate);
      send({ type: 'open', sampleRate: outRate });
    }
    const g = new Float32Array(piece.length);
    for (let i = 0; i < piece.length; i++) g[i] = piece[i]! * gain;
    const l = limiter.push(g);
    limited.push(l);
    out(resampler!.push(l));
  };
  const req: EngineRequest = {
    text: job.text,
    voice: job.voice,
    speed: job.speed,
    pitch: job.pitch,
    profile: job.profile,
    ...(job.language ? { language: job.language } : {}),
    ...(job.words ? { words: true } : {}),
    ...(gainDb !== undefined ? { onAudio } : {}),
  };
  if (!eligible) {
    // A processing step that needs the whole sentence: the ordinary path, the sentence sent whole.
    const r = await runEngine(engine, job);
    const length = r.samples.length;
    send({ type: 'whole', samples: owned(r.samples), sampleRate: r.sampleRate });
    return { ...r, samples: new Float32Array(0), length, streamed: false };
  }
  const parts: Float32Array[] = [];
  const words: WordTiming[] = [];
  let offset = 0;
  for await (const chunk of engine.synthesize(req)) {
    if (rate && chunk.sampleRate !== rate) throw new Error(`${engine.id}: sample rate changed within one sentence`);
    rate = chunk.sampleRate;
    for (const w of chunk.words ?? []) words.push({ word: w.word, start: w.start + offset, end: w.end + offset });
    parts.push(chunk.samples);
    offset += chunk.samples.length / chunk.sampleRate;
  }
  const raw = concatFloat32(parts);
  const t1 = performance.now();
  const whole = (o: { samples: Float32Array; sampleRate: number }, learnt: number | undefined): SynthesisResult => {
    send({ type: 'whole', samples: owned(o.samples), sampleRate: o.sampleRate });
    return finish(o.samples.length, o.sampleRate, false, learnt);
  };
  const normalized = () =>
    postProcess(
      { samples: raw, sampleRate: rate || job.sampleRate, words },
      {
        speed: 1,
        semitones: 0,
        loudness: true,
        sampleRate: job.sampleRate,
        ...(job.keepRates ? { keepRates: job.keepRates } : {}),
      },
    );
  // Nothing came piece by piece (no learnt gain yet, or an engine that gives the sentence whole): the ordinary DSP
  // stage on the whole sentence, sent whole, its gain learnt.
  if (!limiter) return whole(await normalized(), rate ? gainFor(raw, rate) : undefined);
  const last = limiter.end();
  limited.push(last);
  out(resampler!.push(last));
  out(resampler!.end());
  const measured = integratedLoudness(concatFloat32(limited), rate);
  const rest = concatFloat32(held);
  if (Math.abs(measured - TARGET_LUFS) <= LOUDNESS_TOLERANCE_LU) {
    if (rest.length) send({ type: 'pcm', samples: owned(rest) });
    send({ type: 'end' });
    return finish(sent + rest.length, outRate, true, gainDb! + (TARGET_LUFS - measured));
  }
  // Too far from the target: what was not sent yet is the sentence normalized as always, faded in from the guess.
  const exact = await normalized();
  const learnt = gainFor(raw, rate);
  // Nothing sent yet, or the normalized sentence at another length (it never is: the stages match sample for sample).
  if (sent === 0 || exact.sampleRate !== outRate || exact.samples.length < sent) return whole(exact, learnt);
  const tail = exact.samples.slice(sent);
  const fade = Math.min(tail.length, rest.length, Math.round(CROSSFADE_SEC * outRate));
  for (let i = 0; i < fade; i++) {
    const a = (i + 1) / (fade + 1);
    tail[i] = rest[i]! * (1 - a) + tail[i]! * a;
  }
  if (tail.length) send({ type: 'pcm', samples: tail });
  send({ type: 'end' });
  return finish(sent + tail.length, outRate, false, learnt);

  function finish(length: number, sampleRate: number, streamed: boolean, learnt: number | undefined): SynthesisResult {
    return {
      samples: new Float32Array(0),
      sampleRate,
      words: words.length ? trimWordSilences(raw, rate, words) : [],
      engineMs: t1 - t0,
      dspMs: performance.now() - t1,
      length,
      streamed,
      ...(learnt !== undefined ? { gainDb: learnt } : {}),
    };
  }
}
