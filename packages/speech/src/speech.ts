/**
 * The package's high-level API for the server: the voice library, synthesis (whole or streamed),
 * previews, estimates and language checks, behind one object created from config.
 */
import { createHmac } from 'node:crypto';
import os from 'node:os';
import type { Mark } from './audio/marked.ts';
import { EncoderHost, type StreamEncoder } from './audio/encoder-host.ts';
import { NATIVE_RATES } from './audio/encoders.ts';
import { mixVoices, type MixPart } from './catalogue/mix.ts';
import { concatFloat32, int16FromParts } from './dsp/pcm.ts';
import { resamplePolyphase } from './formats/polyphase.ts';
import { ElevenLabsEngine, type ElevenLabsConfig } from './engines/elevenlabs.ts';
import { createLocalEngines } from './engines/local.ts';
import { OpenAIEngine, type OpenAIConfig } from './engines/openai.ts';
import { SherpaEngine, type ModelsChange } from './engines/sherpa.ts';
import type { ModelProblem } from './engines/sherpa-discover.ts';
import { isSpeechError, SpeechError } from './core/errors.ts';
import { joined, sentenceJob, synthesizeChunks, type ChunkContext } from './speech/chunks.ts';
import type { ToFileSink } from './audio/encoder-protocol.ts';
import type { SynthesisJob as SentenceJob, SynthesisResult as PoolResult } from './pool/protocol.ts';
import { cacheKey, MemoryAudioCache, type AudioCache } from './pipeline/cache.ts';
import { makePlan, type Plan, type SynthesisRequest } from './pipeline/plan.ts';
import type { AiLabelPosition } from './pipeline/ai-label.ts';
import { createLabeller } from './speech/label-audio.ts';
import { buildTimings, timingsOf, trimWordSilences, type SentenceTiming, type Timings } from './pipeline/timings.ts';
import { alignByReference } from './pipeline/dtw-align.ts';
import { languageFamily } from './catalogue/languages.ts';
import { WorkerPool } from './pool/pool.ts';
import { MessageChannel } from 'node:worker_threads';
import { checkLanguage, detectLanguage, type DetectedLanguage, type LanguageCheck } from './text/detect-language.ts';
import { cleanText, countCharacters } from './text/normalize.ts';
import {
  CONTENT_TYPES,
  type AudioFormat,
  type Engine,
  type EngineRequest,
  type ModelInfo,
  type VoiceInfo,
  type WordTiming,
} from './core/types.ts';
import { isNeural } from './core/quality.ts';

/** Unmarked WAV and PCM files up to 30 s at 24 kHz (about 1 ms of work) are built on the calling thread, others in the encoder thread. */
const INLINE_PCM_SAMPLES = 720_000;

/** Rates a reference rendering (the generic aligner's) is kept at, as its engine made it. */
const REFERENCE_RATES = [16_000, 22_050, 24_000, 32_000, 44_100, 48_000];
/** Seconds of a stream's first sentence encoded and sent ahead of the rest of it. */
const FIRST_SLICE_SEC = 0.3;
/** How far each sentence moves a voice's learnt loudness gain (an exponential average). */
const GAIN_SMOOTHING = 0.25;

export interface SpeechOptions {
  /**
   * Folder of sherpa-onnx models (MODELS_DIR): release folders and Piper voices as distributed, found by
   * their layout, with `manifest.json` over them (see docs/models.md).
   */
  modelsDir?: string;
  /**
   * Follow MODELS_DIR while running (default true): a model added or removed is picked up within
   * this many milliseconds (default 3000; 0: only by `rescanModels()`).
   */
  modelsPollMs?: number;
  /** Remote providers, each enabled by its URL and key. */
  remote?: RemoteOptions;
  /** Worker threads; default os.availableParallelism(). */
  poolSize?: number;
  /** An interactive lane beside them (default true); see PoolOptions. */
  interactiveLane?: boolean;
  /**
   * Output sample rate (default 24 kHz). Without it, mp3 and Ogg Opus keep an engine's own rate when
   * the format has it (eSpeak's 22,050 Hz is an MPEG-2 rate): no resampling, nothing filtered away.
   */
  sampleRate?: number;
  /** Audio cache for whole-file synthesis and streams; false disables it. */
  cache?: AudioCache | false;
  maxTextLength?: number;
  /**
   * The server's watermark key: every sample encoded carries the mark, with a 32-bit payload derived from the
   * content (its cache key), so a cached replay carries the payload its first rendering did.
   */
  watermark?: { key: Uint8Array };
  /** Load engines in every worker at start (default true). */
  warmup?: boolean;
  /**
   * Stops the start: a warmup still running (tens of seconds on a busy machine) is cut short, the
   * threads it started are ended, and the promise rejects with the signal's reason. A shutdown that
   * comes during the start does not wait for it.
   */
  signal?: AbortSignal;
}

export interface SynthesisResult {
  audio: Buffer;
  format: AudioFormat;
  contentType: string;
  durationSec: number;
  sampleRate: number;
  characters: number;
  language: string;
  sentences: number;
  words: WordTiming[];
  /** The alignment of the text to the audio, when the request asked for it (`timings: true`). */
  timings?: Timings;
  cacheKey: string;
  cached: boolean;
  /** The 32-bit watermark payload in its sound, or null when the speech has no watermark key. */
  mark?: number | null;
  /**
   * The file was encoded while its engine still ran, gained with the voice's learnt loudness gain
   * (and came within the loudness tolerance); false when it was normalized and encoded afterwards.
   */
  encodedAhead?: boolean;
}

export interface VoiceFilter {
  model?: string;
  engine?: string;
  language?: string;
  gender?: string;
  name?: string;
  mixable?: boolean;
  /** Only neural voices (true) or only the others (false). */
  neural?: boolean;
}

export interface Speech {
  listVoices(filter?: VoiceFilter): VoiceInfo[];
  getVoice(id: string): VoiceInfo | undefined;
  listModels(): ModelInfo[];
  synthesize(req: SynthesisRequest): Promise<SynthesisResult>;
  /** Encoded audio chunks, each as soon as it is encoded. */
  synthesizeStream(req: SynthesisRequest): AsyncIterable<Buffer>;
  /** Validates and prepares a request (throws the same errors synthesis would), without synthesizing. */
  /** The request's plan; `timeable`: whether it can have timings (an engine's own word times, or an eSpeak NG language). */
  prepare(req: SynthesisRequest): Plan & { cacheKey: string; contentType: string; mark: number | null; timeable: boolean };
  renderPreview(voiceId: string, format?: AudioFormat): Promise<SynthesisResult>;
  /**
   * Blends 1 to 3 voices of one mixable model. A part is a library voice by id, or `voice`: a
   * library voice carrying a profile of its own (a caller's saved voice built on it).
   */
  mix(parts: ({ voiceId: string; weight: number } | { voice: VoiceInfo; weight: number })[]): {
    base: VoiceInfo;
    profile: VoiceInfo['profile'];
  };
  /** A voice of a zero-shot model (type `cloning`); synthesize with it and a `reference` sample. */
  cloneVoice(modelId: string, name: string, gender?: VoiceInfo['gender']): VoiceInfo;
  estimateCharacters(text: string): number;
  detectLanguage(text: string): DetectedLanguage;
  checkLanguage(text: string, voiceId: string): LanguageCheck;
  readonly poolSize: number;
  /** Whether the worker threads (the engines) have started: they start with the first synthesis or at warmup. */
  readonly enginesStarted: boolean;
  /** Remote providers that were configured but could not be reached at start. */
  readonly unavailable: ReadonlyArray<{ provider: string; code: string; message: string }>;
  /** MODELS_DIR's folders skipped at the last scan (incomplete or unreadable), each with the file at fault. */
  readonly modelProblems: ReadonlyArray<ModelProblem>;
  /** Reads MODELS_DIR now: voices of models added appear, those of models removed go. */
  rescanModels(): ModelsChange;
  /**
   * Replaces the remote providers while running (an operator's change): their voices appear or go at once, a synthesis
   * already running keeps the engine it started with. Answers which providers could not be reached (ElevenLabs lists
   * its voices first); those stay out, as at start.
   */
  setRemote(next: RemoteOptions): Promise<{ unavailable: { provider: string; code: string; message: string }[] }>;
  /** Called after a rescan (a poll's or rescanModels') that changed the models; returns the unsubscribe. */
  onModelsChange(listener: (change: ModelsChange) => void): () => void;
  close(): Promise<void>;
}

export interface RemoteOptions {
  openai?: OpenAIConfig;
  elevenlabs?: ElevenLabsConfig;
}

/** The remote engines of a configuration; a provider that is down or refuses the key is left out and reported. */
async function remoteEngines(
  config: RemoteOptions,
  unavailable: { provider: string; code: string; message: string }[],
): Promise<Map<string, Engine>> {
  const out = new Map<string, Engine>();
  if (config.openai?.url && config.openai.key) out.set('openai', new OpenAIEngine(config.openai));
  if (config.elevenlabs?.url && config.elevenlabs.key) {
    const el = new ElevenLabsEngine(config.elevenlabs);
    try {
      await el.refreshVoices();
      out.set('elevenlabs', el);
    } catch (e) {
      // A provider that is down or refuses the key must not take the local engines with it.
      unavailable.push({ provider: 'elevenlabs', code: isSpeechError(e) ? e.code : 'INTERNAL', message: (e as Error).message });
    }
  }
  return out;
}

/**
 * One call to a remote provider as configured, without a Speech: OpenAI-compatible endpoints speak a word in their
 * first voice, ElevenLabs lists its voices. Resolves with what was learnt, rejects with the provider's error.
 */
export async function testRemoteProvider(
  kind: 'openai' | 'elevenlabs',
  config: OpenAIConfig | ElevenLabsConfig,
  signal?: AbortSignal,
): Promise<{ voices: number }> {
  if (kind === 'elevenlabs') return { voices: (await new ElevenLabsEngine(config).refreshVoices()).length };
  const engine = new OpenAIEngine(config);
  const voice = engine.listVoices()[0]!;
  const req = {
    text: 'Test.',
    voice,
    profile: voice.profile,
    speed: 1,
    pitch: 0,
    ...(signal ? { signal } : {}),
  } as EngineRequest;
  for await (const chunk of engine.synthesize(req)) if (!chunk.samples.length) throw new SpeechError('INTERNAL', 'no audio');
  return { voices: engine.listVoices().length };
}

export async function createSpeech(opts: SpeechOptions = {}): Promise<Speech> {
  const sampleRate = opts.sampleRate ?? 24_000;
  const keepRates = (format: AudioFormat): { keepRates?: number[] } =>
    opts.sampleRate === undefined && (format === 'mp3' || format === 'opus') ? { keepRates: [...NATIVE_RATES[format]] } : {};
  const maxTextLength = opts.maxTextLength ?? 5000;
  const cache = opts.cache === false ? undefined : (opts.cache ?? new MemoryAudioCache());
  const local = createLocalEngines(opts.modelsDir ? { modelsDir: opts.modelsDir } : {});
  const remote = new Map<string, Engine>();
  const unavailable: { provider: string; code: string; message: string }[] = [];
  // Only ElevenLabs is awaited (it lists its voices first): without it, the start goes on in this turn (the warmup's
  // threads start at once, and a signal aborted later still finds them).
  const initialRemote = opts.remote ?? {};
  if (initialRemote.elevenlabs?.url && initialRemote.elevenlabs.key) {
    for (const [id, engine] of (await remoteEngines(initialRemote, unavailable)).entries()) remote.set(id, engine);
  } else if (initialRemote.openai?.url && initialRemote.openai.key) {
    remote.set('openai', new OpenAIEngine(initialRemote.openai));
  }
  // The worker threads start with the first synthesis (or at warmup): a process that only prepares and
  // prices requests (an API process whose synthesis runs in worker processes) never starts an engine.
  const poolOptions = {
    ...(opts.poolSize ? { size: opts.poolSize } : {}),
    ...(opts.modelsDir ? { modelsDir: opts.modelsDir } : {}),
    ...(opts.interactiveLane === false ? { interactiveLane: false } : {}),
  };
  let started: WorkerPool | undefined;
  const lazyPool = (): WorkerPool => (started ??= new WorkerPool(poolOptions));
  const encoder = new EncoderHost();
  if (opts.warmup !== false) {
    opts.signal?.throwIfAborted();
    const warm = Promise.all([lazyPool().warmup(), encoder.warmup(sampleRate)]);
    // Ending the threads fails the warmup's pending work, so `warm` settles at once.
    const stop = (): void => void Promise.all([started?.close(), encoder.close()]).catch(() => {});
    opts.signal?.addEventListener('abort', stop, { once: true });
    try {
      await warm;
    } catch (e) {
      await Promise.all([started?.close(), encoder.close()]).catch(() => {});
      throw opts.signal?.aborted ? opts.signal.reason : e;
    } finally {
      opts.signal?.removeEventListener('abort', stop);
    }
    // Aborted just as the warmup ended: the threads are closing, this instance is not handed out.
    opts.signal?.throwIfAborted();
  }

  let engines = [...local.values(), ...remote.values()];
  // The catalogue: read again when MODELS_DIR changes (rescanModels), so kept in variables the closures below read.
  let voices: VoiceInfo[] = [];
  let byId = new Map<string, VoiceInfo>();
  let mixableModels = new Set<string>();
  const readCatalogue = (): void => {
    // Each voice carries its quality rank: its own where its model declares one, else its engine's.
    voices = engines.flatMap((e) =>
      e.listVoices().map((v) => (v.quality === undefined ? { ...v, quality: e.capabilities.quality } : v)),
    );
    byId = new Map(voices.map((v) => [v.id, v]));
    mixableModels = new Set(
      engines
        .flatMap((e) => e.listModels())
        .filter((m) => m.type === 'mixing')
        .map((m) => m.id),
    );
  };
  readCatalogue();
  const sherpa = local.get('sherpa') instanceof SherpaEngine ? (local.get('sherpa') as SherpaEngine) : undefined;
  const modelListeners = new Set<(change: ModelsChange) => void>();
  const modelsChanged = (change: ModelsChange | undefined): ModelsChange => {
    change ??= { added: [], removed: [], changed: [], problems: sherpa?.problems ?? [] };
    if (change.added.length || change.removed.length || change.changed.length) {
      readCatalogue();
      for (const l of modelListeners) {
        try {
          l(change);
        } catch {
          // A listener's failure is its own.
        }
      }
    }
    return change;
  };
  const pollMs = opts.modelsPollMs ?? 3000;
  const poll = sherpa && pollMs > 0 ? setInterval(() => modelsChanged(sherpa.refreshIfChanged(true)), pollMs).unref() : undefined;
  const ctx: ChunkContext = {
    get pool() {
      return lazyPool();
    },
    localEngines: new Set(local.keys()),
    remoteEngines: remote,
    sampleRate,
  };
  const planCtx = {
    findVoice: (id: string) => byId.get(id),
    findLanguageVoice: (engine: string, language: string) => {
      const lower = language.toLowerCase();
      const own = voices.filter((v) => v.engine === engine && !v.variant.includes('+'));
      return (
        own.find((v) => v.languages.some((l) => l.toLowerCase() === lower)) ??
        own.find((v) => v.languages.some((l) => languageFamily(l) === languageFamily(language)))
      );
    },
    maxTextLength,
  };
  const labeller = createLabeller({ ctx: () => ctx, ...planCtx });
  /** The plan's explicit label with its gap, at `rate`, when it goes at `position`. */
  const labelAt = async (plan: Plan, position: AiLabelPosition, rate: number, signal?: AbortSignal) =>
    plan.aiLabel?.position === position ? labeller.samples({ ...plan, aiLabel: plan.aiLabel }, rate, signal) : undefined;

  const watermarkKey = opts.watermark?.key;
  /** The payload a content's audio carries: keyed, so no one without the key can tell which content it names. */
  const payloadOf = (key: string): number =>
    createHmac('sha256', watermarkKey!).update(`payload:${key}`).digest().readUInt32BE(0);
  const markOf = (plan: Plan, key = keyOf(plan)): Mark | undefined =>
    watermarkKey ? { key: watermarkKey, payload: payloadOf(key) } : undefined;

  const keyOf = (plan: Plan): string =>
    cacheKey({
      text: plan.text,
      voiceId: plan.voice.id,
      profile: plan.profile,
      language: plan.language,
      speed: plan.speed,
      pitch: plan.pitch,
      format: plan.format,
      sampleRate,
      ...(plan.aiLabel ? { aiLabel: plan.aiLabel } : {}),
      // Markup's pauses, prosody and voices are not in the text: the same words with a break are other audio.
      ...(plan.parts
        ? { parts: plan.parts.map((p) => ({ ...p, voice: p.voice?.variant, profile: p.profile ? p.voice?.id : undefined })) }
        : {}),
    });

  // The server prepares a request (to validate and price it), then synthesizes that same object:
  // its plan is kept, so a long text is not normalized and segmented twice before its first byte.
  const PLAN_FIELDS = [
    'text',
    'voiceId',
    'voice',
    'profile',
    'language',
    'format',
    'speed',
    'pitch',
    'reference',
    'checkLanguage',
    'aiLabel',
    'timings',
    'lexicon',
    'normalization',
    'markup',
  ] as const;
  const prepared = new WeakMap<SynthesisRequest, { plan: Plan; fields: unknown[] }>();
  /** The warm-up's own requests: they neither read nor fill the cache (shared, at scale, with other processes). */
  const uncached = new WeakSet<SynthesisRequest>();
  const cacheFor = (req: SynthesisRequest) => (uncached.has(req) ? undefined : cache);
  const planOf = (req: SynthesisRequest): Plan => {
    const fields = PLAN_FIELDS.map((f) => req[f]);
    const kept = prepared.get(req);
    if (kept && kept.fields.every((v, i) => v === fields[i])) return kept.plan;
    const plan = makePlan(req, planCtx);
    // Timings come from an engine's own word events, else from an eSpeak NG rendering of the language aligned to
    // the audio; a language eSpeak NG does not speak gets no made-up alignment.
    if (req.timings && !timedEngine(plan.voice.engine) && !referenceVoice(plan.language))
      throw new SpeechError('VALIDATION_FAILED', `voice_id: no timings for ${plan.voice.engine} voices in ${plan.language}`, {
        params: { field: 'voice_id', rule: 'a voice whose engine reports word timings, or a language eSpeak NG speaks' },
      });
    prepared.set(req, { plan, fields });
    return plan;
  };

  const timedEngine = (id: string): boolean => engines.find((e) => e.id === id)?.capabilities.wordTimings === true;
  const espeakVoices = voices.filter((v) => v.engine === 'espeak' && !v.variant.includes('+'));
  /** The eSpeak NG voice whose rendering of a language is the generic aligner's reference: the language's own, else its family's. */
  const referenceVoice = (language: string): VoiceInfo | undefined => {
    const lower = language.toLowerCase();
    return (
      espeakVoices.find((v) => v.languages.some((l) => l.toLowerCase() === lower)) ??
      espeakVoices.find((v) => v.languages.some((l) => languageFamily(l) === languageFamily(language)))
    );
  };
  /**
   * Word times for a sentence of an engine that reports none: an eSpeak NG rendering of the same text (its word
   * events known) aligned to the sentence's audio by dynamic time warping of their cepstra.
   */
  async function renderReference(text: string, language: string, signal?: AbortSignal) {
    const voice = referenceVoice(language)!;
    const plan = makePlan({ text, voice, language, format: 'pcm', checkLanguage: false }, planCtx);
    const parts: Float32Array[] = [];
    const words: WordTiming[] = [];
    let at = 0;
    let rate = 0;
    // At the engine's own rate: the aligner reads features at any rate, so no resampling is spent on a reference.
    for await (const s of synthesizeChunks(ctx, plan, signal, undefined, { keepRates: REFERENCE_RATES })) {
      rate ||= s.sampleRate;
      const pcm = sameRate(s.samples, s.sampleRate, rate);
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
  function referenceAligner(plan: Plan, signal?: AbortSignal) {
    const started = new Map<number, ReturnType<typeof renderReference>>();
    const start = (i: number) => {
      if (i >= plan.sentences.length || started.has(i)) return;
      const p = renderReference(plan.sentences[i]!, plan.language, signal);
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

  /** The rate each engine's sentences came at, per format: a stream's encoder opens with it. */
  const streamRates = new Map<string, number>();

  /** A sentence at another rate than the file's first one (an engine that changed rate) is brought to it. */
  const sameRate = (samples: Float32Array, from: number, to: number): Float32Array => resamplePolyphase(samples, from, to);

  /**
   * The loudness gain each voice (with its profile, speed and pitch) needed, smoothed over its
   * recent sentences: a one-sentence file is gained with it while its engine still runs.
   */
  const gains = new Map<string, number>();
  const gainKey = (plan: Plan): string => JSON.stringify([plan.voice.id, plan.profile, plan.language, plan.speed, plan.pitch]);
  const learnGain = (key: string, db: number | undefined): void => {
    if (db === undefined || !Number.isFinite(db)) return;
    const before = gains.get(key);
    if (gains.size >= 4096 && before === undefined) gains.clear();
    gains.set(key, before === undefined ? db : before + GAIN_SMOOTHING * (db - before));
  };

  /**
   * A one-sentence mp3 or Ogg Opus file from a local engine: the pool worker sends the samples
   * straight to the encoder thread, which encodes them as the engine makes them (pool/streamed.ts).
   */
  async function synthesizeOne(
    plan: Plan,
    req: SynthesisRequest,
  ): Promise<{ audio: Buffer; rate: number; length: number; words: WordTiming[]; encodedAhead: boolean }> {
    req.signal?.throwIfAborted();
    const key = gainKey(plan);
    const known = gains.get(key);
    const job = {
      ...sentenceJob(ctx, plan, plan.sentences[0]!, { ...keepRates(plan.format), words: req.timings === true }),
      ...(known !== undefined ? { gainDb: known } : {}),
    };
    const { port1, port2 } = new MessageChannel();
    // The worker marks the samples it sends (pool/streamed.ts), so the encoder takes them as they are.
    const file = encoder.file(plan.format, port1);
    // Awaited once the sentence is done; a drop or failure before that must not go unhandled.
    file.audio.catch(() => {});
    // A caller who leaves while the sentence still waits for a worker takes it out of the queue.
    const sentence = lazyPool().synthesizeInto(job, port2, req.signal, markOf(plan));
    const stop = (): void => file.drop();
    req.signal?.addEventListener('abort', stop, { once: true });
    try {
      const r = await sentence.catch((e: unknown) => {
        file.drop();
        throw e;
      });
      learnGain(key, r.gainDb);
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

  async function synthesize(req: SynthesisRequest): Promise<SynthesisResult> {
    const plan = planOf(req);
    // Requests that carry a reference sample are never cached: the key does not cover the sample.
    const key = keyOf(plan);
    const base = {
      format: plan.format,
      contentType: CONTENT_TYPES[plan.format],
      sampleRate,
      characters: plan.characters,
      language: plan.language,
      sentences: plan.sentences.length,
      cacheKey: key,
    };
    const cache = cacheFor(req);
    const mark = markOf(plan, key);
    // The cache keeps audio, not timings: a request for timings makes its audio again (the same audio).
    const hit = plan.reference || req.timings ? undefined : await cache?.get(key);
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
      (!req.timings || timedEngine(plan.voice.engine)) &&
      plan.sentences.length === 1 &&
      (plan.format === 'mp3' || plan.format === 'opus') &&
      ctx.localEngines.has(plan.voice.engine) &&
      !remote.has(plan.voice.engine)
    ) {
      const one = await synthesizeOne(plan, req);
      const durationSec = one.length / one.rate;
      if (!plan.reference) await cache?.set(key, { audio: one.audio, durationSec, sampleRate: one.rate });
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
    const align = req.timings && !timedEngine(plan.voice.engine) ? referenceAligner(plan, req.signal) : undefined;
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
      file ??= encoder.stream(plan.format, rate, true, mark);
      const w = file.write(pcm);
      w.catch(() => {});
      writes.push(w);
    };
    try {
      const opts = { ...keepRates(plan.format), words: req.timings === true };
      for await (const s of synthesizeChunks(ctx, plan, req.signal, req.onProgress, opts)) {
        rate ||= s.sampleRate;
        // The label is made at the file's rate, known with its first sentence; it goes in before it.
        const head = s.index === 0 ? await labelAt(plan, 'start', rate, req.signal) : undefined;
        if (head) {
          take(head);
          offset += head.length / rate;
        }
        for (const w of s.words ?? []) words.push({ word: w.word, start: w.start + offset, end: w.end + offset });
        const pcm = sameRate(s.samples, s.sampleRate, rate);
        if (req.timings) {
          const sentenceWords = align ? await align(s.index, s) : (s.words ?? []);
          placed.push({ text: s.text, start: offset, duration: pcm.length / rate, words: sentenceWords });
        }
        offset += s.samples.length / s.sampleRate;
        take(pcm);
      }
      rate ||= sampleRate;
      const tail = await labelAt(plan, 'end', rate, req.signal);
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
        audio = await encoder.encode(concatFloat32(parts), rate, plan.format, mark);
      }
      const durationSec = length / rate;
      if (!plan.reference) await cache?.set(key, { audio, durationSec, sampleRate: rate });
      const timings = req.timings
        ? { timings: buildTimings(req.text, plan.text, placed, durationSec, plan.spoken, plan.marks) }
        : {};
      return { ...base, sampleRate: rate, audio, durationSec, words, ...timings, cached: false, mark: mark?.payload ?? null };
    } catch (e) {
      file?.abort();
      throw e;
    }
  }

  /**
   * A stream's first sentence from a pool worker (`pool/streamed.ts`, `synthesizeAhead`): its first FIRST_SLICE_SEC
   * seconds as the engine makes them, then the rest once the sentence is complete and measured (`end`), or the whole
   * sentence at once (`whole`). Returns the worker's result (words, length, the gain to learn).
   */
  async function* aheadMessages(job: SentenceJob, signal?: AbortSignal): AsyncGenerator<ToFileSink, PoolResult> {
    const { port1, port2 } = new MessageChannel();
    const queue: ToFileSink[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    let failed = false;
    const poke = (): void => wake?.();
    port1.on('message', (m: ToFileSink) => {
      queue.push(m);
      poke();
    });
    port1.on('close', () => {
      closed = true;
      poke();
    });
    signal?.addEventListener('abort', poke, { once: true });
    const result = lazyPool().synthesizeAhead(job, port2, FIRST_SLICE_SEC, signal);
    // The sink's messages and the result come on different ports, in no set order: the result is read last.
    result.catch(() => {
      failed = true;
      poke();
    });
    try {
      for (;;) {
        signal?.throwIfAborted();
        const m = queue.shift();
        if (m) {
          if (m.type === 'fail') break;
          yield m;
          if (m.type === 'end' || m.type === 'whole') break;
          continue;
        }
        if (closed || failed) break;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
      const r = await result;
      signal?.throwIfAborted();
      return r;
    } finally {
      signal?.removeEventListener('abort', poke);
      port1.close();
    }
  }

  async function* synthesizeStream(req: SynthesisRequest): AsyncIterable<Buffer> {
    const plan = planOf(req);
    const key = keyOf(plan);
    const cache = cacheFor(req);
    // The cache keeps audio, not timings: a stream with timings makes its audio again (the same audio).
    const hit = plan.reference || req.timings ? undefined : await cache?.get(key);
    if (hit) {
      for (let i = 0; i < hit.audio.length; i += 64 * 1024) yield hit.audio.subarray(i, i + 64 * 1024);
      return;
    }
    // Timings as the stream goes: each sentence placed at its offset, the alignment so far handed on before the rest of
    // its audio (a first sentence's first fraction of a second leaves before its words are known).
    const timed = req.timings ? req.onTimings : undefined;
    const align = timed && !timedEngine(plan.voice.engine) ? referenceAligner(plan, req.signal) : undefined;
    // The text's part of the timings is made once; each sentence adds its times (pipeline/timings.ts).
    const timings = timed ? timingsOf(req.text, plan.text, plan.spoken, plan.marks) : undefined;
    const placed: SentenceTiming[] = [];
    let at = 0;
    // The stream's rate is its first sentence's (an engine's own, or the configured one). The encoder
    // is opened at once with the rate this engine gave last time, while the sentence is synthesized,
    // and opened again only if the guess was wrong.
    const rateKey = `${plan.voice.engine}\u0000${plan.format}`;
    let rate = 0;
    let opened = streamRates.get(rateKey) ?? sampleRate;
    const mark = markOf(plan, key);
    let stream: StreamEncoder = encoder.stream(plan.format, opened, false, mark);
    const out: Buffer[] = [];
    let samples = 0;
    let complete = false;
    let head: Float32Array | undefined;
    /** The stream's rate, from its first sentence's: the encoder is opened again if it guessed another. */
    const rateFrom = (first: number): void => {
      if (rate) return;
      rate = first;
      streamRates.set(rateKey, rate);
      if (head) rate = opened;
      else if (rate !== opened) {
        stream.abort();
        stream = encoder.stream(plan.format, rate, false, mark);
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
      head = await labelAt(plan, 'start', opened, req.signal);
      if (head) {
        samples += head.length;
        at += head.length / opened;
        yield* write(head);
      }
      const words = timed !== undefined;
      // A local engine's first sentence is sent as the engine makes it: its first fraction of a second leaves before
      // the sentence is complete (and before its words are known); a marked-up plan's pieces take the ordinary path.
      const ahead = ctx.localEngines.has(plan.voice.engine) && !remote.has(plan.voice.engine) && !plan.parts;
      if (ahead) {
        const learnt = gains.get(gainKey(plan));
        const job: SentenceJob = {
          ...sentenceJob(ctx, plan, plan.sentences[0]!, { ...keepRates(plan.format), words }, 0),
          // After a label the speech comes at the rate the label went at.
          ...(head ? { sampleRate: opened, keepRates: [opened] } : {}),
          ...(learnt !== undefined ? { gainDb: learnt } : {}),
        };
        const got: Float32Array[] = [];
        let whole: Float32Array | undefined;
        let written = 0;
        const messages = aheadMessages(job, req.signal);
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
        learnGain(gainKey(plan), result.gainDb);
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
        ? { from: 1, ...keepRates(plan.format), words }
        : // The first sentence runs alone, so the first bytes come as soon as one sentence could.
          { firstAlone: true, ...keepRates(plan.format), words };
      for await (const s of synthesizeChunks(ctx, plan, req.signal, req.onProgress, opts)) {
        rateFrom(s.sampleRate);
        const pcm = sameRate(s.samples, s.sampleRate, rate);
        samples += pcm.length;
        await place(s.index, s.text, pcm, pcm.length, s.words);
        // The first sentence goes to the encoder in two writes: the bytes of its first fraction of a
        // second are out while the rest is encoded, instead of after the whole sentence.
        const cut = s.index === 0 ? Math.min(pcm.length, Math.round(FIRST_SLICE_SEC * rate)) : pcm.length;
        yield* write(pcm.subarray(0, cut), pcm.subarray(cut));
      }
      rate ||= opened;
      const tail = await labelAt(plan, 'end', rate, req.signal);
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
    if (!plan.reference && plan.format !== 'wav')
      await cache?.set(key, { audio: Buffer.concat(out), durationSec: samples / rate, sampleRate: rate });
  }

  /**
   * The paths a first request takes, run once at warm-up through the same functions real requests use: the pool's
   * warm-up runs the engine alone and the encoder's a whole-file encode, but a first stream also opened its stream
   * encoder at a guessed rate and again at the engine's, and went through planning, the first-sentence-alone path,
   * the streamed one-sentence file and their modules for the first time. Each format that streams or has a
   * one-sentence fast path is spoken once, both ways.
   */
  async function warmPaths(signal: AbortSignal | undefined): Promise<void> {
    const voice = byId.get('espeak:en-us');
    if (!voice) return;
    const text = 'Warming up the first request. It has two sentences.';
    const language = voice.languages[0]!;
    const base = { voice, language, checkLanguage: false, ...(signal ? { signal } : {}) };
    for (const format of ['mp3', 'opus'] as const) {
      const stream: SynthesisRequest = { ...base, text, format };
      uncached.add(stream);
      for await (const chunk of synthesizeStream(stream)) void chunk;
      const one: SynthesisRequest = { ...base, text: 'Warming up one sentence.', format };
      uncached.add(one);
      await synthesize(one);
    }
  }
  if (opts.warmup !== false) {
    // A shutdown during these paths stops them as it stops the threads' warmup above.
    try {
      await warmPaths(opts.signal);
    } catch (e) {
      await Promise.all([started?.close(), encoder.close()]).catch(() => {});
      throw opts.signal?.aborted ? opts.signal.reason : e;
    }
    opts.signal?.throwIfAborted();
  }

  return {
    listVoices(filter = {}) {
      return voices.filter(
        (v) =>
          (!filter.model || v.model === filter.model) &&
          (!filter.engine || v.engine === filter.engine) &&
          (!filter.gender || v.gender === filter.gender) &&
          (!filter.language ||
            v.languages.some(
              (l) =>
                l.toLowerCase() === filter.language!.toLowerCase() ||
                l.toLowerCase().split('-')[0] === filter.language!.toLowerCase(),
            )) &&
          (!filter.name || v.name.toLowerCase().includes(filter.name.toLowerCase())) &&
          (filter.mixable === undefined || mixableModels.has(v.model) === filter.mixable) &&
          (filter.neural === undefined || isNeural(v.quality) === filter.neural),
      );
    },
    getVoice: (id) => byId.get(id),
    listModels: () =>
      engines.flatMap((e) =>
        e.listModels().map((m) => (m.quality === undefined ? { ...m, quality: e.capabilities.quality } : m)),
      ),
    synthesize,
    synthesizeStream,
    prepare(req) {
      const plan = planOf(req);
      const key = keyOf(plan);
      return {
        ...plan,
        cacheKey: key,
        contentType: CONTENT_TYPES[plan.format],
        mark: markOf(plan, key)?.payload ?? null,
        timeable: timedEngine(plan.voice.engine) || !!referenceVoice(plan.language),
      };
    },
    renderPreview(voiceId, format = 'mp3') {
      const voice = byId.get(voiceId);
      if (!voice) throw new SpeechError('NOT_FOUND', `voice ${voiceId} not found`);
      return synthesize({ text: voice.previewText, voice, format, language: voice.languages[0]!, checkLanguage: false });
    },
    mix(parts) {
      const resolved: MixPart[] = parts.map((p) => {
        const id = 'voice' in p ? p.voice.id : p.voiceId;
        const library = byId.get(id);
        if (!library) throw new SpeechError('NOT_FOUND', `voice ${id} not found`);
        // A saved voice is its library voice with another profile: everything else stays the library's.
        const voice = 'voice' in p ? { ...library, profile: p.voice.profile } : library;
        if (!mixableModels.has(voice.model))
          throw new SpeechError('VALIDATION_FAILED', `voices of ${voice.model} cannot be mixed`, {
            params: { field: 'mix', rule: 'mixable model' },
          });
        return { voice, weight: p.weight };
      });
      return mixVoices(resolved);
    },
    cloneVoice(modelId, name, gender) {
      const sherpa = local.get('sherpa');
      if (!(sherpa instanceof SherpaEngine)) throw new SpeechError('NOT_FOUND', `model ${modelId} is not installed`);
      return sherpa.cloneVoice(modelId, name, gender);
    },
    estimateCharacters: (text) => countCharacters(cleanText(text)),
    detectLanguage,
    checkLanguage(text, voiceId) {
      const voice = byId.get(voiceId);
      if (!voice) throw new SpeechError('NOT_FOUND', `voice ${voiceId} not found`);
      return checkLanguage(text, voice.languages);
    },
    poolSize: started?.size ?? Math.max(1, opts.poolSize ?? os.availableParallelism()),
    get enginesStarted() {
      return started !== undefined;
    },
    unavailable,
    get modelProblems() {
      return sherpa?.problems ?? [];
    },
    rescanModels: () => modelsChanged(sherpa?.rescan()),
    async setRemote(next) {
      const down: typeof unavailable = [];
      const built = await remoteEngines(next, down);
      const before = [...remote.values()].flatMap((e) => e.listModels().map((m) => m.id));
      remote.clear();
      for (const [id, engine] of built) remote.set(id, engine);
      unavailable.splice(0, unavailable.length, ...down);
      engines = [...local.values(), ...remote.values()];
      readCatalogue();
      const after = [...remote.values()].flatMap((e) => e.listModels().map((m) => m.id));
      const change: ModelsChange = {
        added: after.filter((m) => !before.includes(m)),
        removed: before.filter((m) => !after.includes(m)),
        changed: after.filter((m) => before.includes(m)),
        problems: sherpa?.problems ?? [],
      };
      // Told even when the same models stay: their provider (its address, key or voices) may be another.
      for (const l of modelListeners) {
        try {
          l(change);
        } catch {
          // A listener's failure is its own.
        }
      }
      return { unavailable: down };
    },
    onModelsChange(listener) {
      modelListeners.add(listener);
      return () => modelListeners.delete(listener);
    },
    async close() {
      if (poll) clearInterval(poll);
      await started?.close();
      await encoder.close();
      await Promise.all(engines.map((e) => e.close?.()));
    },
  };
}
