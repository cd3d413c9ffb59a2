import { metrics } from '../platform/metrics.js';
import type { AiLabelKind, AudioFormat, LexiconRule, SynthesisRequest, TextNormalization } from '@polyvox/speech';
import { CONTENT_TYPES, countCharacters, instructedProfile, settingsProfile, spokenText, strongerLabel } from '@polyvox/speech';
import { readMarkup, type TextType } from '../pronunciation/ssml.js';
import { spendPauses } from '../pronunciation/pause-budget.js';
import type { CreditsService, Hold } from '../credits/service.js';
import type { Synthesizer } from '../speech/synthesizer.js';
import type {
  AiLabelPolicy,
  Charge,
  Prepared,
  Progress,
  PronunciationLocator,
  PronunciationRules,
  RenderedAudio,
  ResolvedVoice,
  Synthesized,
  TtsInput,
} from './types.js';
import { priceOf } from '../credits/credits-config.js';
import type { VoicesService } from '../voices/service.js';
import type { SpeechHost } from '../speech/speech-host.js';
import { mapSpeechErrors, toAppError } from '../speech/errors.js';
import { HeldWork } from './held-work.js';
import { AppError } from '../platform/errors.js';
import type { ContentReview, ReviewContext } from '../moderation/service.js';

export type { AiLabelPolicy, Charge, Prepared, Progress, ResolvedVoice, Synthesized, TtsInput } from './types.js';

/** What paid work stopped by a shutdown fails with: a clean error, not a stack in the log. */
const shuttingDown = () => new AppError('INTERNAL', {}, { cause: new Error('server shutting down') });

/** The contract's request body (snake_case) as the service's input. */
export function ttsInput(
  body: {
    text: string;
    voice_id: string;
    language?: string;
    format: AudioFormat;
    speed: number;
    pitch: number;
    ai_label?: AiLabelKind | undefined;
    pronunciation_dictionary_locators?: PronunciationLocator[] | undefined;
    apply_text_normalization?: TextNormalization | undefined;
    text_type?: TextType | undefined;
  },
  accountId?: string,
): TtsInput {
  return {
    ...(accountId ? { accountId } : {}),
    text: body.text,
    voiceId: body.voice_id,
    format: body.format,
    speed: body.speed,
    pitch: body.pitch,
    ...(body.language ? { language: body.language } : {}),
    ...(body.ai_label ? { aiLabel: body.ai_label } : {}),
    ...(body.pronunciation_dictionary_locators ? { pronunciationLocators: body.pronunciation_dictionary_locators } : {}),
    ...(body.apply_text_normalization ? { normalization: body.apply_text_normalization } : {}),
    ...(body.text_type ? { textType: body.text_type } : {}),
  };
}

/** The characters a text is priced by (and held to the plan's limit by): SSML's spoken ones, else all but whitespace. */
export function pricedCharacters(text: string, textType?: TextType): number {
  return readMarkup(text, textType)?.characters ?? countCharacters(text);
}

export interface SynthesisOptions {
  host: SpeechHost;
  voices: VoicesService;
  credits: CreditsService;
  /** Where the audio is made: the engines here, or (ROLE=api) a worker process through the queue. */
  synthesizer: Synthesizer;
  /** The operator's explicit AI label; absent: none unless a request asks. */
  aiLabel?: AiLabelPolicy;
  /** The requests' pronunciation dictionaries; absent: none are applied. */
  pronunciation?: PronunciationRules;
  /** The moderation step every text passes before anything is held or spoken; absent: none (unit tests). */
  review?: ContentReview;
}

/** Text to audio for a caller who pays: price first, hold it, synthesize, then settle or release. */
export class SynthesisService {
  private readonly active = new Set<HeldWork>();
  private readonly idle: (() => void)[] = [];
  private stopping = false;
  /** Work that may yet take a hold (a realtime piece being prepared): `drain` waits for it too. */
  private readonly pending = new Set<Promise<unknown>>();

  private readonly host: SpeechHost;
  private readonly voices: VoicesService;
  private readonly credits: CreditsService;
  private readonly synthesizer: Synthesizer;
  private readonly aiLabel: AiLabelPolicy;
  private readonly pronunciation: PronunciationRules | undefined;
  private readonly review: ContentReview | undefined;

  constructor(options: SynthesisOptions) {
    this.review = options.review;
    this.pronunciation = options.pronunciation;
    this.aiLabel = options.aiLabel ?? { explicit: 'off', position: 'start' };
    this.host = options.host;
    this.voices = options.voices;
    this.credits = options.credits;
    this.synthesizer = options.synthesizer;
  }

  /** Runs a whole file through the synthesizer (here or, with a queue, in a worker process). */
  private synthesizeFile(request: SynthesisRequest, reqId: string | undefined): Promise<RenderedAudio> {
    return this.synthesizer.synthesize(request, reqId ? { reqId } : {});
  }

  /**
   * Work on a hold taken earlier, by this or another process (a job that runs again after its process
   * died): the hold's deadline keeps moving while it runs and it is closed once, as any other.
   */
  adopt(hold: Hold, prepared: Pick<Prepared, 'credits' | 'characters' | 'voiceId' | 'voice'>, charge: Charge): HeldWork {
    const details = {
      characters: prepared.characters,
      voice_id: prepared.voiceId ?? prepared.voice.id,
      api_key_id: charge.apiKeyId ?? null,
      record_type: charge.recordType,
    };
    const work = new HeldWork({
      credits: this.credits,
      hold,
      charge: { amount: prepared.credits, details },
      onClosed: (w) => {
        this.active.delete(w);
        if (this.active.size === 0) for (const wake of this.idle.splice(0)) wake();
      },
    });
    this.active.add(work);
    if (this.stopping) work.abort(shuttingDown());
    return work;
  }

  /** Validates the request exactly as synthesis will and prices it; throws the contract's errors. */
  /** The voice an OpenAI voice name stands for, or undefined for any other name. */
  openAiVoice(name: string): Promise<string | undefined> {
    return this.voices.openAiVoice(name);
  }

  async prepare(input: TtsInput): Promise<Prepared> {
    const voice = await this.voices.get(input.voiceId, input.accountId);
    const review = input.review ?? { accountId: input.accountId, route: input.route ?? 'tts', purpose: 'synthesis' as const };
    return this.prepareFor(voice, { ...input, review, lexicon: input.lexicon ?? (await this.rulesOf(input)) });
  }

  /** The pronunciation rules a request applies (its dictionaries, else the account's default); NOT_FOUND for one it may not read. */
  async rulesOf(input: Pick<TtsInput, 'accountId' | 'pronunciationLocators'>): Promise<LexiconRule[]> {
    return this.pronunciation ? this.pronunciation.rulesFor(input.accountId, input.pronunciationLocators) : [];
  }

  /** As `prepare`, for a voice already resolved (a designed voice being previewed). */
  async prepareFor(
    voice: ResolvedVoice,
    input: Omit<TtsInput, 'voiceId' | 'accountId'> & { voiceId?: string },
  ): Promise<Prepared> {
    const { info } = voice;
    // A request adds a label or asks for a stronger one; the operator's always stands. The notice is not priced:
    // `characters` is counted on the user's text alone.
    const label = strongerLabel(this.aiLabel.explicit, input.aiLabel);
    const own = voice.profile ?? info.profile;
    let profile = input.instructions?.trim() ? instructedProfile(own, input.instructions).profile : voice.profile;
    if (input.voiceSettings) {
      // ElevenLabs' settings; at their defaults the profile is the same object, so the request is unchanged.
      const base = profile ?? own;
      const settled = settingsProfile(base, input.voiceSettings);
      if (settled !== base) profile = settled;
    }
    // Read (and its pauses held to the budget) before the engines are waited for.
    const markup = readMarkup(input.text, input.textType, (profile ?? own).pitchHz, input.pauses);
    const speech = await this.host.get();
    const request: SynthesisRequest = {
      text: input.text,
      ...(markup ? { markup } : {}),
      voice: info,
      ...(profile ? { profile } : {}),
      ...(voice.reference ? { reference: voice.reference } : {}),
      format: input.format,
      speed: input.speed,
      pitch: input.pitch,
      ...(input.language ? { language: input.language } : {}),
      ...(label ? { aiLabel: { kind: label, position: this.aiLabel.position } } : {}),
      ...(input.timings === true ? { timings: true } : {}),
      ...(input.lexicon?.length ? { lexicon: input.lexicon } : {}),
      ...(input.normalization && input.normalization !== 'auto' ? { normalization: input.normalization } : {}),
    };
    let plan = await mapSpeechErrors(async () => speech.prepare(request));
    if (input.timings === 'auto' && plan.timeable) {
      request.timings = true;
      plan = await mapSpeechErrors(async () => speech.prepare(request));
    }
    // The one moderation step of every text an engine speaks, before anything is held: what was written (SSML's
    // text once parsed), how it is to be spoken (instructions), and the plan's sentences (dictionaries' aliases applied).
    await this.review?.review(
      [markup ? markup.written : input.text, input.instructions, spokenText(plan.sentences)],
      input.review ?? { route: input.route ?? 'tts', purpose: 'synthesis' },
    );
    if (input.pauses) spendPauses(input.pauses, plan.characters, markup);
    return {
      request,
      voice: info,
      ...(input.voiceId ? { voiceId: input.voiceId } : {}),
      characters: plan.characters,
      credits: priceOf(this.credits.config, info.model, info.engine, plan.characters),
      contentType: plan.contentType,
      mark: plan.mark,
      origin: { voiceType: voice.voice?.type ?? 'preset', ...(voice.sampleId ? { sampleId: voice.sampleId } : {}) },
      ...(plan.pronunciationFallbacks.length ? { pronunciationFallbacks: plan.pronunciationFallbacks } : {}),
    };
  }

  /** The moderation step for texts that shape a voice rather than being spoken by one (a design prompt, a transcript). */
  async reviewTexts(texts: readonly (string | undefined)[], context: ReviewContext): Promise<void> {
    await this.review?.review(texts, context);
  }

  /** What `characters` of a prepared request's voice cost (a part of it, or a minimum). */
  price(prepared: Pick<Prepared, 'voice'>, characters: number): number {
    return priceOf(this.credits.config, prepared.voice.model, prepared.voice.engine, characters);
  }

  /**
   * The text exactly as a synthesis of `input` would speak it, by the same plan the synthesis makes (dictionaries,
   * normalization, segmentation): nothing is held or charged. Phoneme rules a voice's engine reads (eSpeak NG, Flite,
   * GnuSpeech, the sherpa-onnx models eSpeak NG phonemizes for) show as the `[[…]]` phonemes it receives, in its alphabet; elsewhere as their alias, or as written.
   */
  async normalize(input: TtsInput): Promise<{ text: string; sentences: string[]; language: string; characters: number }> {
    const prepared = await this.prepare(input);
    const speech = await this.host.get();
    const plan = await mapSpeechErrors(async () => speech.prepare(prepared.request));
    return { text: spokenText(plan.sentences), sentences: plan.sentences, language: plan.language, characters: plan.characters };
  }

  async estimate(
    text: string,
    voiceId: string,
    accountId?: string,
    pronunciationLocators?: PronunciationLocator[],
    textType?: TextType,
  ): Promise<{ credits: number; characters: number; language: string; language_supported: boolean }> {
    const { info } = await this.voices.get(voiceId, accountId);
    const markup = readMarkup(text, textType, info.profile.pitchHz);
    // The price counts the text as sent; the dictionaries named are checked all the same (404 for one it may not read),
    // and applied, so rules the synthesis would refuse (adding too much unpriced text) are refused here too.
    const lexicon = await this.rulesOf({
      ...(accountId ? { accountId } : {}),
      ...(pronunciationLocators ? { pronunciationLocators } : {}),
    });
    const speech = await this.host.get();
    const plan = await mapSpeechErrors(async () =>
      speech.prepare({ text, voice: info, checkLanguage: false, lexicon, ...(markup ? { markup } : {}) }),
    );
    const check = speech.checkLanguage(markup ? markup.written : text, info.id);
    return {
      credits: priceOf(this.credits.config, info.model, info.engine, plan.characters),
      characters: plan.characters,
      language: check.detected.language,
      language_supported: check.ok,
    };
  }

  /**
   * Holds the price (402 before any work) as a piece of work the shutdown can stop and wait for. `ownHold`: only
   * this process will ever close or release it (a request's own file, not a job another route can cancel), so while
   * it is young its deadline alone proves it still held (see `HeldWork.ensureHeld`).
   */
  async hold(prepared: Prepared, charge: Charge, signal?: AbortSignal, ownHold = false): Promise<HeldWork> {
    const heldSince = Date.now();
    const hold = await this.credits.hold(charge.accountId, prepared.credits, charge.recordType, undefined, {
      apiKeyId: charge.apiKeyId ?? null,
    });
    const details = {
      characters: prepared.characters,
      voice_id: prepared.voiceId ?? prepared.voice.id,
      api_key_id: charge.apiKeyId ?? null,
      record_type: charge.recordType,
    };
    const work = new HeldWork({
      credits: this.credits,
      hold,
      charge: { amount: prepared.credits, details },
      signal,
      onClosed: (w) => {
        this.active.delete(w);
        if (this.active.size === 0) for (const wake of this.idle.splice(0)) wake();
      },
      heldSince: ownHold ? heldSince : undefined,
    });
    this.active.add(work);
    if (this.stopping) work.abort(shuttingDown());
    return work;
  }

  /**
   * Holds the price, synthesizes, and returns the audio with its hold still open: the caller settles
   * once the audio is delivered and releases if it is not. A failure releases the hold here.
   *
   * Without a hold of the caller's (`opts.work`, a job's), the hold is taken while synthesis
   * already runs: nothing is returned before the hold exists, a refused hold (402) stops the
   * synthesis and is what the caller gets, and a synthesis that fails releases the hold.
   */
  async render(
    prepared: Prepared,
    charge: Charge,
    opts: { signal?: AbortSignal; onProgress?: Progress; work?: HeldWork; reqId?: string } = {},
  ): Promise<{ result: Synthesized; work: HeldWork }> {
    // The engines (here, or the request's preparation in an API process) are up before anything is held.
    await this.host.get();
    // A caller that left while the request was prepared is not held, let alone charged.
    opts.signal?.throwIfAborted();
    const t0 = performance.now();
    // Stops the synthesis when the hold is refused, or when the held work is stopped.
    const stop = new AbortController();
    const request = {
      ...prepared.request,
      signal: opts.work ? opts.work.signal : opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal,
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    };
    const synthesized = opts.work ? undefined : this.synthesizeFile(request, opts.reqId);
    // Awaited below once the hold is taken; a refused hold leaves its failure unread.
    synthesized?.catch(() => {});
    let work: HeldWork;
    try {
      work = opts.work ?? (await this.hold(prepared, charge, opts.signal, true));
    } catch (e) {
      stop.abort(e);
      throw e;
    }
    const held = performance.now() - t0;
    const stopWith = () => stop.abort(work.signal.reason);
    if (work.signal.aborted) stopWith();
    else work.signal.addEventListener('abort', stopWith, { once: true });
    try {
      // Synthesis time counts from its start, which a concurrent hold did not hold back.
      const t1 = synthesized ? t0 : performance.now();
      const result = await (synthesized ?? this.synthesizeFile(request, opts.reqId));
      // A cache hit never looks at the signal; a caller that left must not pay for it either.
      work.signal.throwIfAborted();
      const t2 = performance.now();
      // A cache hit made no audio: only real synthesis counts towards time and real-time factor.
      if (!result.cached)
        metrics.synthesis(prepared.voice.engine, opts.work ? 'job' : 'file', (t2 - t1) / 1000, result.durationSec);
      await work.ensureHeld();
      const timings = { hold: held, synth: t2 - t1, settle: performance.now() - t2 };
      const mark = result.mark ?? null;
      const alignment = result.timings ? { alignment: result.timings } : {};
      return {
        result: { audio: result.audio, durationSec: result.durationSec, cached: result.cached, mark, timings, ...alignment },
        work,
      };
    } catch (e) {
      await work.release(work.signal.aborted ? 'stopped before delivery' : 'synthesis failed');
      throw toAppError(e);
    } finally {
      work.signal.removeEventListener('abort', stopWith);
    }
  }

  /**
   * Yields encoded audio as it is made and returns true once all of it is out. The price is held on
   * the first `next()` (a generator that never starts holds nothing), settled after the last chunk,
   * and released if synthesis fails, the consumer calls `return()`, or `signal` or the shutdown stops
   * it, even while it waits at a chunk nobody reads; stopping also kills the encoder.
   */
  stream(
    prepared: Prepared,
    charge: Charge,
    signal: AbortSignal,
    reqId?: string,
    /** Told the hold's id once it is taken (the history prices the item by its settlement). */
    onHold?: (holdId: string) => void,
  ): AsyncGenerator<Buffer, boolean> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the generator below needs the service
    const self = this;
    const generator = (async function* guarded(): AsyncGenerator<Buffer, boolean> {
      await self.host.get();
      if (signal.aborted) return false;
      const work = await self.hold(prepared, charge, signal);
      onHold?.(work.hold.id);
      work.signal.addEventListener('abort', () => void generator.return(false).catch(() => {}), { once: true });
      let complete = false;
      const started = performance.now();
      try {
        work.signal.throwIfAborted();
        for await (const chunk of self.synthesizer.synthesizeStream(
          { ...prepared.request, signal: work.signal },
          reqId ? { reqId } : {},
        )) {
          work.signal.throwIfAborted();
          yield chunk;
        }
        complete = true;
        // A stream's audio length is not known here; its time counts, its real-time factor does not.
        metrics.synthesis(prepared.voice.engine, 'stream', (performance.now() - started) / 1000, 0);
      } catch (e) {
        throw toAppError(e);
      } finally {
        await (complete ? work.settle() : work.release('stream ended early'));
      }
      return true;
    })();
    return generator;
  }

  /**
   * Shutdown: new work stops at once; work in flight gets `graceMs` to finish, then stops, and each
   * piece releases its hold as it stops.
   */
  async stopAll(graceMs: number): Promise<void> {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.drain(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const work of this.active) work.abort(shuttingDown());
  }

  /** Stops the account's work in flight here (a disabled account): each piece releases its hold as it stops. */
  stopAccount(accountId: string, reason: Error): number {
    let stopped = 0;
    for (const work of this.active)
      if (work.hold.accountId === accountId) {
        work.abort(reason);
        stopped += 1;
      }
    return stopped;
  }

  /** Counts `work` (which may take holds and closes them before it ends) as in flight until it ends. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    void work.then(
      () => this.pending.delete(work),
      () => this.pending.delete(work),
    );
    return work;
  }

  /** Resolves once every tracked piece of work has ended and every hold taken here is settled or released. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    if (this.active.size === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }
}

export { CONTENT_TYPES };
