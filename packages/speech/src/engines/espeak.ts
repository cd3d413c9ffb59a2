/**
 * eSpeak NG: ~140 languages, rate and pitch natively, word timings from its events. Synchronous
 * WASM, so it runs inside the worker pool, never on the server's event loop.
 */
import { espeakVoices, ESPEAK_MODEL } from '../catalogue/espeak-voices.ts';
import { changeSpeedPitch } from '../dsp/sonic.ts';
import type { Engine, EngineRequest, ModelInfo, PcmChunk, VoiceInfo } from '../core/types.ts';
import { espeakSynthesize, ESPEAK_SAMPLE_RATE } from './espeak-runtime.ts';
import { interpolate, totalSemitones, totalSpeed } from './pitch.ts';
import { QUALITY } from '../core/quality.ts';

/** eSpeak's pitch parameter (0–100) against the semitones it moves F0 from 50, measured on this build. */
const PITCH_CURVE: readonly (readonly [number, number])[] = [
  [-6.6, 0],
  [-3.7, 25],
  [0, 50],
  [4.4, 75],
  [9.0, 100],
];
const DEFAULT_WPM = 175;

export class EspeakEngine implements Engine {
  readonly id = 'espeak';
  readonly capabilities = {
    quality: QUALITY.espeak,
    languages: [...new Set(espeakVoices().flatMap((v) => v.languages))],
    mixable: true,
    nativeCloning: false,
    ssml: true,
    wordTimings: true,
    nativePitch: true,
    nativeSpeed: true,
    // Over about 440 wpm eSpeak speeds up no more (slower than 80 wpm it stretches itself, below).
    speedRange: [0.25, 2.5] as const,
  };

  listVoices(): VoiceInfo[] {
    return espeakVoices();
  }

  listModels(): ModelInfo[] {
    const voices = espeakVoices();
    return [
      {
        id: ESPEAK_MODEL,
        name: 'eSpeak NG',
        engine: this.id,
        type: 'mixing',
        languages: this.capabilities.languages,
        genders: [...new Set(voices.map((v) => v.gender))],
        description: 'Formant synthesis in about 140 languages and accents; fast, clear, and mixable.',
        voiceCount: voices.length,
      },
    ];
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    const semis = totalSemitones(req);
    const native = Math.max(PITCH_CURVE[0]![0], Math.min(PITCH_CURVE[PITCH_CURVE.length - 1]![0], semis));
    const rest = semis - native;
    const speed = totalSpeed(req);
    const wpm = DEFAULT_WPM * speed;
    // eSpeak's rate stops at 80 wpm; slower than that is stretched afterwards.
    const nativeWpm = Math.max(80, wpm);
    const stretch = wpm / nativeWpm;
    const stretched = Math.abs(rest) > 0.01 || Math.abs(stretch - 1) > 0.01;
    const onAudio = req.onAudio;
    const out = await espeakSynthesize(req.text, {
      voice: req.voice.variant,
      rate: nativeWpm,
      pitch: interpolate(PITCH_CURVE, native),
      range: req.profile.range,
      // Pieces are final only when nothing is stretched afterwards.
      ...(onAudio && !stretched ? { onSamples: (s: Float32Array) => onAudio(s, ESPEAK_SAMPLE_RATE) } : {}),
    });
    let samples = out.samples;
    if (stretched) {
      samples = await changeSpeedPitch(samples, ESPEAK_SAMPLE_RATE, stretch, rest);
    }
    const k = 1 / stretch;
    yield {
      samples,
      sampleRate: ESPEAK_SAMPLE_RATE,
      words: out.words.map((w) => ({ word: w.word, start: w.start * k, end: w.end * k })),
    };
  }
}
