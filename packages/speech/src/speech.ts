/**
 * The package's high-level API for the server: the voice library, synthesis (whole or streamed),
 * previews, estimates and language checks, behind one object created from config. Its parts are in speech/:
 * the library and its providers (library.ts, remote.ts), MODELS_DIR's watch (model-watch.ts), the threads
 * (threads.ts), planning (planning.ts), the audio cache (content-cache.ts), the watermark (marking.ts), the learnt
 * gains (gains.ts), the reference aligner (reference-align.ts), and the whole-file and streamed synthesis (whole.ts,
 * stream.ts).
 */
import os from 'node:os';
import { createLocalEngines } from './engines/local.ts';
import { OpenAIEngine } from './engines/openai.ts';
import { SpeechError } from './core/errors.ts';
import { MemoryAudioCache } from './pipeline/cache.ts';
import type { AiLabelPosition } from './pipeline/ai-label.ts';
import type { Plan, SynthesisRequest } from './pipeline/plan.ts';
import { checkLanguage, detectLanguage } from './text/detect-language.ts';
import { cleanText, countCharacters } from './text/normalize.ts';
import { CONTENT_TYPES } from './core/types.ts';
import type { Speech, SpeechOptions } from './speech/api.ts';
import type { ChunkContext } from './speech/chunks.ts';
import { ContentCache } from './speech/content-cache.ts';
import type { SynthesisContext } from './speech/context.ts';
import { GainMemory } from './speech/gains.ts';
import { createLabeller } from './speech/label-audio.ts';
import { VoiceLibrary } from './speech/library.ts';
import { marker } from './speech/marking.ts';
import { ModelWatch } from './speech/model-watch.ts';
import { Planner } from './speech/planning.ts';
import { referenceAligner } from './speech/reference-align.ts';
import { remoteEngines } from './speech/remote.ts';
import { synthesizeStream } from './speech/stream.ts';
import { SpeechThreads } from './speech/threads.ts';
import { synthesizeWhole } from './speech/whole.ts';
import { pcmEncoderOf } from './audio/pcm-encoder.ts';

export type { RemoteOptions } from './speech/remote.ts';
export { testRemoteProvider } from './speech/remote.ts';
export type { Speech, SpeechOptions, SynthesisResult, VoiceFilter } from './speech/api.ts';

/**
 * The library of the configured engines; only ElevenLabs is awaited (it lists its voices first). Without it, the
 * library comes in this turn, so the start goes on in it (the warmup's threads start at once, and a signal aborted
 * later still finds them).
 */
function openLibrary(opts: SpeechOptions): VoiceLibrary | Promise<VoiceLibrary> {
  const library = new VoiceLibrary(createLocalEngines(opts.modelsDir ? { modelsDir: opts.modelsDir } : {}));
  const remote = opts.remote ?? {};
  if (remote.elevenlabs?.url && remote.elevenlabs.key)
    return remoteEngines(remote, library.unavailable).then((engines) => {
      for (const [id, engine] of engines) library.remote.set(id, engine);
      library.read();
      return library;
    });
  if (remote.openai?.url && remote.openai.key) {
    library.remote.set('openai', new OpenAIEngine(remote.openai));
    library.read();
  }
  return library;
}

export async function createSpeech(opts: SpeechOptions = {}): Promise<Speech> {
  const sampleRate = opts.sampleRate ?? 24_000;
  const opening = openLibrary(opts);
  const library = opening instanceof VoiceLibrary ? opening : await opening;
  // The worker threads start with the first synthesis (or at warmup): a process that only prepares and
  // prices requests (an API process whose synthesis runs in worker processes) never starts an engine.
  const threads = new SpeechThreads({
    ...(opts.poolSize ? { size: opts.poolSize } : {}),
    ...(opts.modelsDir ? { modelsDir: opts.modelsDir } : {}),
    ...(opts.interactiveLane === false ? { interactiveLane: false } : {}),
  });
  const chunks: ChunkContext = {
    get pool() {
      return threads.pool;
    },
    localEngines: new Set(library.local.keys()),
    remoteEngines: library.remote,
    sampleRate,
  };
  const planner = new Planner(library, opts.maxTextLength ?? 5000);
  const labeller = createLabeller({ ctx: () => chunks, ...planner.context });
  const s: SynthesisContext = {
    sampleRate,
    fixedRate: opts.sampleRate !== undefined,
    chunks,
    threads,
    library,
    planner,
    cache: new ContentCache(opts.cache === false ? undefined : (opts.cache ?? new MemoryAudioCache()), sampleRate),
    gains: new GainMemory(),
    markOf: marker(opts.watermark?.key),
    labelAt: async (plan: Plan, position: AiLabelPosition, rate: number, signal?: AbortSignal) =>
      plan.aiLabel?.position === position ? labeller.samples({ ...plan, aiLabel: plan.aiLabel }, rate, signal) : undefined,
    aligner: (plan, signal) =>
      referenceAligner({ chunks, plans: planner.context, referenceVoice: (l) => library.referenceVoice(l) }, plan, signal),
    streamRates: new Map(),
  };

  /**
   * The paths a first request takes, run once at warm-up through the same functions real requests use: the pool's
   * warm-up runs the engine alone and the encoder's a whole-file encode, but a first stream also opened its stream
   * encoder at a guessed rate and again at the engine's, and went through planning, the first-sentence-alone path,
   * the streamed one-sentence file and their modules for the first time. Each format that streams or has a
   * one-sentence fast path is spoken once, both ways.
   */
  async function warmPaths(signal: AbortSignal | undefined): Promise<void> {
    const voice = library.find('espeak:en-us');
    if (!voice) return;
    const text = 'Warming up the first request. It has two sentences.';
    const language = voice.languages[0]!;
    const base = { voice, language, checkLanguage: false, ...(signal ? { signal } : {}) };
    for (const format of ['mp3', 'opus'] as const) {
      const stream: SynthesisRequest = { ...base, text, format };
      s.cache.skip(stream);
      for await (const chunk of synthesizeStream(s, stream)) void chunk;
      const one: SynthesisRequest = { ...base, text: 'Warming up one sentence.', format };
      s.cache.skip(one);
      await synthesizeWhole(s, one);
    }
  }
  if (opts.warmup !== false) await threads.warmup(sampleRate, opts.signal, () => warmPaths(opts.signal));
  const watch = new ModelWatch(library, opts.modelsPollMs ?? 3000);

  const synthesize = (req: SynthesisRequest) => synthesizeWhole(s, req);
  return {
    listVoices: (filter) => library.list(filter),
    getVoice: (id) => library.find(id),
    listModels: () => library.models(),
    synthesize,
    synthesizeStream: (req) => synthesizeStream(s, req),
    prepare(req) {
      const plan = planner.planOf(req);
      const key = s.cache.keyOf(plan);
      return {
        ...plan,
        cacheKey: key,
        contentType: CONTENT_TYPES[plan.format],
        mark: s.markOf(key)?.payload ?? null,
        timeable: planner.timeable(plan),
      };
    },
    renderPreview(voiceId, format = 'mp3') {
      const voice = library.find(voiceId);
      if (!voice) throw new SpeechError('NOT_FOUND', `voice ${voiceId} not found`);
      return synthesize({ text: voice.previewText, voice, format, language: voice.languages[0]!, checkLanguage: false });
    },
    mix: (parts) => library.mix(parts),
    cloneVoice: (modelId, name, gender) => library.cloneVoice(modelId, name, gender),
    estimateCharacters: (text) => countCharacters(cleanText(text)),
    detectLanguage,
    checkLanguage(text, voiceId) {
      const voice = library.find(voiceId);
      if (!voice) throw new SpeechError('NOT_FOUND', `voice ${voiceId} not found`);
      return checkLanguage(text, voice.languages);
    },
    poolSize: threads.running?.size ?? Math.max(1, opts.poolSize ?? os.availableParallelism()),
    get enginesStarted() {
      return threads.running !== undefined;
    },
    unavailable: library.unavailable,
    get modelProblems() {
      return library.sherpa?.problems ?? [];
    },
    rescanModels: () => watch.rescan(),
    async setRemote(next) {
      const { change, unavailable } = await library.setRemote(next);
      // Told even when the same models stay: their provider (its address, key or voices) may be another.
      watch.tell(change);
      return { unavailable };
    },
    onModelsChange: (listener) => watch.on(listener),
    openPcmEncoder: (format, sampleRate, whole = false, mark) =>
      pcmEncoderOf(threads.encoder.stream(format, sampleRate, whole, mark)),
    async close() {
      watch.close();
      await threads.close();
      await library.close();
    },
  };
}
