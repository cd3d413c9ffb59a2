/**
 * ElevenLabs text to speech: `POST /v1/text-to-speech/{voice_id}?output_format=pcm_24000` with
 * `xi-api-key`; voices from `GET /v1/voices`. Speed goes upstream inside its range (0.7–1.2),
 * the rest and any pitch through Sonic.
 */
import { changeSpeedPitch } from '../dsp/sonic.ts';
import { previewTextFor } from '../catalogue/languages.ts';
import { SpeechError } from '../core/errors.ts';
import type { Engine, EngineRequest, Gender, ModelInfo, PcmChunk, VoiceInfo } from '../core/types.ts';
import { totalSemitones, totalSpeed } from './pitch.ts';
import { mapProviderError, pcm16ToFloat, postForAudio, safeJson, type RemoteProviderConfig } from './remote-http.ts';
import { QUALITY } from '../core/quality.ts';

export interface ElevenLabsConfig extends RemoteProviderConfig {
  model?: string;
}

const PCM_RATE = 24000;
const LANGUAGES = [
  'en',
  'zh-CN',
  'ja',
  'ko',
  'es',
  'fr',
  'de',
  'it',
  'pt',
  'ru',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'id',
  'vi',
  'sv',
  'uk',
  'cs',
];
const PITCH: Record<Gender, number> = { male: 115, female: 200, neutral: 160 };

function parseError(status: number, text: string): { reason: string; message: string } {
  const detail = safeJson(text)?.detail;
  if (detail && typeof detail === 'object' && !Array.isArray(detail)) {
    const d = detail as { status?: string; message?: string };
    return { reason: d.status ?? `http_${status}`, message: d.message ?? '' };
  }
  if (Array.isArray(detail)) return { reason: 'validation_error', message: JSON.stringify(detail).slice(0, 200) };
  return { reason: `http_${status}`, message: text.slice(0, 200) };
}

export class ElevenLabsEngine implements Engine {
  readonly id = 'elevenlabs';
  readonly capabilities = {
    quality: QUALITY.neural,
    languages: LANGUAGES,
    mixable: false,
    nativeCloning: false,
    ssml: false,
    wordTimings: false,
    nativePitch: true,
    nativeSpeed: true,
  };
  readonly model: string;
  private voices: VoiceInfo[] = [];

  constructor(private readonly config: ElevenLabsConfig) {
    this.model = config.model ?? 'eleven_multilingual_v2';
  }

  /** Loads the account's voices (`GET /v1/voices`). */
  async refreshVoices(): Promise<VoiceInfo[]> {
    const res = await fetch(new URL('/v1/voices', this.config.url), {
      headers: { 'xi-api-key': this.config.key },
      signal: AbortSignal.timeout(this.config.timeoutMs ?? 15_000),
    }).catch((e: Error) => {
      throw new SpeechError('INTERNAL', `elevenlabs: ${e.message}`, { cause: e });
    });
    const text = await res.text();
    if (!res.ok) throw mapProviderError('elevenlabs', { status: res.status, ...parseError(res.status, text) });
    const list = (safeJson(text)?.voices ?? []) as { voice_id: string; name?: string; labels?: Record<string, string> }[];
    this.voices = list.map((v) => {
      const g = v.labels?.gender?.toLowerCase();
      const gender: Gender = g === 'male' || g === 'female' ? g : 'neutral';
      return {
        id: `elevenlabs:${v.voice_id}`,
        name: v.name ?? v.voice_id,
        gender,
        languages: LANGUAGES,
        model: `elevenlabs:${this.model}`,
        engine: this.id,
        variant: v.voice_id,
        age: 'adult' as const,
        profile: { pitchHz: PITCH[gender], range: 50, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
        previewText: previewTextFor('en'),
        ...(v.labels?.description ? { description: v.labels.description } : {}),
      };
    });
    return this.voices;
  }

  listVoices(): VoiceInfo[] {
    return this.voices;
  }

  listModels(): ModelInfo[] {
    return [
      {
        id: `elevenlabs:${this.model}`,
        name: `ElevenLabs ${this.model}`,
        engine: this.id,
        type: 'remote',
        languages: LANGUAGES,
        genders: [...new Set(this.voices.map((v) => v.gender))],
        description: 'Remote speech from ElevenLabs',
        voiceCount: this.voices.length,
      },
    ];
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    const speed = totalSpeed(req);
    const upstream = Math.min(1.2, Math.max(0.7, speed));
    const url = new URL(`/v1/text-to-speech/${encodeURIComponent(req.voice.variant)}`, this.config.url);
    url.searchParams.set('output_format', `pcm_${PCM_RATE}`);
    const body = {
      text: req.text,
      model_id: this.model,
      voice_settings: { stability: 0.5, similarity_boost: 0.75, speed: upstream },
    };
    const audio = await postForAudio('elevenlabs', url.href, { 'xi-api-key': this.config.key, accept: 'audio/pcm' }, body, {
      ...(this.config.timeoutMs ? { timeoutMs: this.config.timeoutMs } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      parseError,
    });
    let samples = pcm16ToFloat(audio);
    const semis = totalSemitones(req);
    const rest = speed / upstream;
    if (Math.abs(semis) > 0.01 || Math.abs(rest - 1) > 0.01) samples = await changeSpeedPitch(samples, PCM_RATE, rest, semis);
    yield { samples, sampleRate: PCM_RATE };
  }
}
