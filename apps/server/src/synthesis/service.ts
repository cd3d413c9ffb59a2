import type { AudioFormat, SynthesisRequest, VoiceInfo } from '@polyvox/speech';
import { CONTENT_TYPES } from '@polyvox/speech';
import type { CreditsService } from '../credits/service.js';
import { priceOf } from '../credits/credits-config.js';
import type { VoicesService } from '../voices/service.js';
import type { SpeechHost } from './speech-host.js';
import { mapSpeechErrors, toAppError } from './errors.js';

export interface TtsInput {
  text: string;
  voiceId: string;
  language?: string;
  format: AudioFormat;
  speed: number;
  pitch: number;
}

/** The contract's request body (snake_case) as the service's input. */
export function ttsInput(body: {
  text: string;
  voice_id: string;
  language?: string;
  format: AudioFormat;
  speed: number;
  pitch: number;
}): TtsInput {
  return {
    text: body.text,
    voiceId: body.voice_id,
    format: body.format,
    speed: body.speed,
    pitch: body.pitch,
    ...(body.language ? { language: body.language } : {}),
  };
}

export interface Charge {
  accountId: string;
  apiKeyId?: string | null;
  recordType: string;
}

export type Progress = (p: { done: number; total: number }) => void;
export interface Synthesized {
  audio: Buffer;
  durationSec: number;
  cached: boolean;
  /** Milliseconds spent holding credits, synthesizing and settling (for `server-timing`). */
  timings: { hold: number; synth: number; settle: number };
}

export interface Prepared {
  request: SynthesisRequest;
  voice: VoiceInfo;
  characters: number;
  credits: number;
  contentType: string;
}

/** Text to audio for a caller who pays: price first, hold it, synthesize, then settle or release. */
export class SynthesisService {
  constructor(
    private readonly host: SpeechHost,
    private readonly voices: VoicesService,
    private readonly credits: CreditsService,
  ) {}

  /** Validates the request exactly as synthesis will and prices it; throws the contract's errors. */
  async prepare(input: TtsInput): Promise<Prepared> {
    const { info } = await this.voices.get(input.voiceId);
    const speech = await this.host.get();
    const request: SynthesisRequest = {
      text: input.text,
      voice: info,
      format: input.format,
      speed: input.speed,
      pitch: input.pitch,
      ...(input.language ? { language: input.language } : {}),
    };
    const plan = await mapSpeechErrors(async () => speech.prepare(request));
    return {
      request,
      voice: info,
      characters: plan.characters,
      credits: priceOf(this.credits.config, info.model, info.engine, plan.characters),
      contentType: plan.contentType,
    };
  }

  async estimate(
    text: string,
    voiceId: string,
  ): Promise<{ credits: number; characters: number; language: string; language_supported: boolean }> {
    const { info } = await this.voices.get(voiceId);
    const speech = await this.host.get();
    const plan = await mapSpeechErrors(async () => speech.prepare({ text, voice: info, checkLanguage: false }));
    const check = speech.checkLanguage(text, info.id);
    return {
      credits: priceOf(this.credits.config, info.model, info.engine, plan.characters),
      characters: plan.characters,
      language: check.detected.language,
      language_supported: check.ok,
    };
  }

  /** Holds the price now (402 before any work), and returns the synthesis to run, which settles or releases. */
  async begin(prepared: Prepared, charge: Charge): Promise<(onProgress?: Progress) => Promise<Synthesized>> {
    const speech = await this.host.get();
    const t0 = performance.now();
    const hold = await this.credits.hold(charge.accountId, prepared.credits, charge.recordType);
    const held = performance.now() - t0;
    return async (onProgress) => {
      try {
        const t1 = performance.now();
        const result = await speech.synthesize({ ...prepared.request, ...(onProgress ? { onProgress } : {}) });
        const t2 = performance.now();
        await this.settle(hold.id, prepared, charge);
        const timings = { hold: held, synth: t2 - t1, settle: performance.now() - t2 };
        return { audio: result.audio, durationSec: result.durationSec, cached: result.cached, timings };
      } catch (e) {
        await this.credits.release(hold.id, 'synthesis failed');
        throw toAppError(e);
      }
    };
  }

  async synthesize(prepared: Prepared, charge: Charge): Promise<Synthesized> {
    return (await this.begin(prepared, charge))();
  }

  /**
   * Holds the price, then yields encoded audio as it is made. The hold is settled when the last chunk
   * is out and released if synthesis fails or the client goes away first.
   */
  async stream(prepared: Prepared, charge: Charge): Promise<AsyncIterable<Buffer>> {
    const speech = await this.host.get();
    const hold = await this.credits.hold(charge.accountId, prepared.credits, charge.recordType);
    const settle = () => this.settle(hold.id, prepared, charge);
    const release = () => this.credits.release(hold.id, 'stream ended early');
    return (async function* guarded() {
      let complete = false;
      try {
        for await (const chunk of speech.synthesizeStream(prepared.request)) yield chunk;
        complete = true;
      } catch (e) {
        throw toAppError(e);
      } finally {
        await (complete ? settle() : release());
      }
    })();
  }

  private async settle(holdId: string, prepared: Prepared, charge: Charge): Promise<void> {
    await this.credits.settle(holdId, prepared.credits, {
      characters: prepared.characters,
      voice_id: prepared.voice.id,
      api_key_id: charge.apiKeyId ?? null,
      record_type: charge.recordType,
    });
  }
}

export { CONTENT_TYPES };
