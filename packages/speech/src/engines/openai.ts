/**
 * An OpenAI-compatible speech endpoint (`POST /v1/audio/speech`): OpenAI itself, Kokoro-FastAPI,
 * LocalAI. Audio is requested as `pcm` (24 kHz, 16-bit little-endian mono), so no decoding is needed.
 */
import { changeSpeedPitch } from '../dsp/sonic.ts';
import { previewTextFor } from '../catalogue/languages.ts';
import type { Engine, EngineRequest, Gender, ModelInfo, PcmChunk, VoiceInfo } from '../core/types.ts';
import { totalSemitones, totalSpeed } from './pitch.ts';
import { pcm16ToFloat, postForAudio, safeJson, type RemoteProviderConfig } from './remote-http.ts';
import { QUALITY } from '../core/quality.ts';

export interface OpenAIConfig extends RemoteProviderConfig {
  /** Model name sent upstream: gpt-4o-mini-tts, tts-1, kokoro… */
  model?: string;
  /** Voices to offer; defaults to OpenAI's. */
  voices?: { id: string; name?: string; gender?: Gender; languages?: string[] }[];
}

const PCM_RATE = 24000;
const LANGUAGES = [
  'en',
  'zh-CN',
  'zh-TW',
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
  'th',
  'sv',
];
const OPENAI_VOICES: { id: string; gender: Gender }[] = [
  { id: 'alloy', gender: 'neutral' },
  { id: 'ash', gender: 'male' },
  { id: 'ballad', gender: 'male' },
  { id: 'coral', gender: 'female' },
  { id: 'echo', gender: 'male' },
  { id: 'fable', gender: 'male' },
  { id: 'nova', gender: 'female' },
  { id: 'onyx', gender: 'male' },
  { id: 'sage', gender: 'female' },
  { id: 'shimmer', gender: 'female' },
  { id: 'verse', gender: 'male' },
];
const PITCH: Record<Gender, number> = { male: 115, female: 200, neutral: 160 };

export class OpenAIEngine implements Engine {
  readonly id = 'openai';
  readonly capabilities = {
    quality: QUALITY.neural,
    languages: LANGUAGES,
    mixable: false,
    nativeCloning: false,
    ssml: false,
    wordTimings: false,
    nativePitch: true,
    nativeSpeed: true,
    // OpenAI's own range.
    speedRange: [0.25, 4] as const,
  };
  readonly model: string;
  private readonly voices: VoiceInfo[];

  constructor(private readonly config: OpenAIConfig) {
    this.model = config.model ?? 'gpt-4o-mini-tts';
    const list = config.voices ?? OPENAI_VOICES;
    this.voices = list.map((v) => {
      const gender = v.gender ?? 'neutral';
      const languages = ('languages' in v && v.languages) || LANGUAGES;
      return {
        id: `openai:${v.id}`,
        name: ('name' in v && v.name) || v.id[0]!.toUpperCase() + v.id.slice(1),
        gender,
        languages,
        model: `openai:${this.model}`,
        engine: this.id,
        variant: v.id,
        age: 'adult' as const,
        profile: { pitchHz: PITCH[gender], range: 50, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
        previewText: previewTextFor(languages[0] ?? 'en'),
      };
    });
  }

  listVoices(): VoiceInfo[] {
    return this.voices;
  }

  listModels(): ModelInfo[] {
    return [
      {
        id: `openai:${this.model}`,
        name: `OpenAI-compatible ${this.model}`,
        engine: this.id,
        type: 'remote',
        languages: LANGUAGES,
        genders: [...new Set(this.voices.map((v) => v.gender))],
        description: `Remote speech from ${new URL(this.config.url).host}`,
        voiceCount: this.voices.length,
      },
    ];
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    const speed = Math.min(4, Math.max(0.25, totalSpeed(req)));
    const body: Record<string, unknown> = {
      model: this.model,
      input: req.text,
      voice: req.voice.variant,
      response_format: 'pcm',
      speed,
    };
    const audio = await postForAudio(
      'openai',
      new URL('/v1/audio/speech', this.config.url).href,
      { authorization: `Bearer ${this.config.key}` },
      body,
      {
        ...(this.config.timeoutMs ? { timeoutMs: this.config.timeoutMs } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
        parseError: (status, text) => {
          const err = safeJson(text)?.error as { code?: string; type?: string; message?: string } | undefined;
          return { reason: err?.code ?? err?.type ?? `http_${status}`, message: err?.message ?? text.slice(0, 200) };
        },
      },
    );
    let samples = pcm16ToFloat(audio);
    const semis = totalSemitones(req);
    if (Math.abs(semis) > 0.01) samples = await changeSpeedPitch(samples, PCM_RATE, 1, semis);
    yield { samples, sampleRate: PCM_RATE };
  }
}
