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
import type { Engine, EngineRequest, WordTiming } from '../types.ts';
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
    const eligible =
      job.loudness &&
      engine.capabilities.nativeSpeed &&
      // A speed beyond what the engine does natively is stretched by the DSP stage, on the whole sentence.
      splitSpeed(job, engine.capabilities).rest === 1 &&
      engine.capabilities.nativePitch &&
      Object.keys(job).every((k) => KNOWN_FIELDS.has(k)) &&
      // A designed or cloned voice's conversion stage needs the whole sentence: the ordinary path.
      conversionOf(job.profile, job.voice.profile, job.pitch) === undefined;
    if (eligible) return await piecewiseInto(engine, job, send);
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
