import type { LexiconRule, SynthesisRequest } from '@polyvox/speech';
import { CONTENT_TYPES, instructedProfile, settingsProfile, spokenText, strongerLabel } from '@polyvox/speech';
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
  ResolvedVoice,
  Synthesized,
  TtsInput,
} from './types.js';
import { priceOf } from '../credits/credits-config.js';
import type { VoicesService } from '../voices/service.js';
import type { SpeechHost } from '../speech/speech-host.js';
import { mapSpeechErrors } from '../speech/errors.js';
import type { HeldWork } from './held-work.js';
import type { ContentReview, ReviewContext } from '../moderation/service.js';
import { WorkInFlight } from './in-flight.js';
import { render, stream, type Delivery } from './delivery.js';

export type { AiLabelPolicy, Charge, Prepared, Progress, ResolvedVoice, Synthesized, TtsInput } from './types.js';

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
  /** The holds taken here and the work that may yet take one. */
  private readonly inFlight: WorkInFlight;
  /** What `render` and `stream` use of the service. */
  private readonly delivery: Delivery;

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
    this.inFlight = new WorkInFlight(options.credits);
    this.delivery = { host: this.host, synthesizer: this.synthesizer, hold: (...args) => this.hold(...args) };
  }

  /**
   * Work on a hold taken earlier, by this or another process (a job that runs again after its process
   * died): the hold's deadline keeps moving while it runs and it is closed once, as any other.
   */
  adopt(hold: Hold, prepared: Pick<Prepared, 'credits' | 'characters' | 'voiceId' | 'voice'>, charge: Charge): HeldWork {
    return this.inFlight.open(hold, prepared, charge);
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
    return this.inFlight.open(hold, prepared, charge, { signal, heldSince: ownHold ? heldSince : undefined });
  }

  /** Holds, synthesizes and returns the audio with its hold open (see `render` in delivery.ts). */
  render(
    prepared: Prepared,
    charge: Charge,
    opts: { signal?: AbortSignal; onProgress?: Progress; work?: HeldWork; reqId?: string } = {},
  ): Promise<{ result: Synthesized; work: HeldWork }> {
    return render(this.delivery, prepared, charge, opts);
  }

  /** Yields encoded audio as it is made, held on the first `next()` (see `stream` in delivery.ts). */
  stream(
    prepared: Prepared,
    charge: Charge,
    signal: AbortSignal,
    reqId?: string,
    /** Told the hold's id once it is taken (the history prices the item by its settlement). */
    onHold?: (holdId: string) => void,
  ): AsyncGenerator<Buffer, boolean> {
    return stream(this.delivery, prepared, charge, signal, reqId, onHold);
  }

  /** Shutdown: new work stops at once; work in flight gets `graceMs` to finish, then stops and releases its hold. */
  stopAll(graceMs: number): Promise<void> {
    return this.inFlight.stopAll(graceMs);
  }

  /** Stops the account's work in flight here (a disabled account): each piece releases its hold as it stops. */
  stopAccount(accountId: string, reason: Error): number {
    return this.inFlight.stopAccount(accountId, reason);
  }

  /** Counts `work` (which may take holds and closes them before it ends) as in flight until it ends. */
  track<T>(work: Promise<T>): Promise<T> {
    return this.inFlight.track(work);
  }

  /** Resolves once every tracked piece of work has ended and every hold taken here is settled or released. */
  drain(): Promise<void> {
    return this.inFlight.drain();
  }
}

export { CONTENT_TYPES };
