/**
 * Flite (WASI): its built-in English voices. Pitch by `int_f0_target_mean` (Hz), speed by
 * `duration_stretch` (rms ignores the F0 target: Sonic shifts it). Each call instantiates the
 * compiled module with a private temp folder, in a helper process.
 */
import { decodeWav } from '../dsp/pcm.ts';
import { changeSpeedPitch } from '../dsp/sonic.ts';
import type { Engine, EngineRequest, ModelInfo, PcmChunk, VoiceInfo } from '../types.ts';
import { ChildHost } from './child-host.ts';
import { totalSemitones, totalSpeed } from './pitch.ts';
import { QUALITY } from '../quality.ts';

export const FLITE_MODEL = 'flite';

const VOICES: {
  variant: string;
  name: string;
  gender: 'male' | 'female';
  languages: string[];
  pitchHz: number;
  stddev: number;
  description: string;
}[] = [
  {
    variant: 'slt',
    name: 'Sarah (Flite)',
    gender: 'female',
    languages: ['en-US', 'en'],
    pitchHz: 170,
    stddev: 25,
    description: 'US English female, clustergen statistical voice',
  },
  {
    variant: 'kal16',
    name: 'Kal (Flite, 16 kHz)',
    gender: 'male',
    languages: ['en-US', 'en'],
    pitchHz: 105,
    stddev: 14,
    description: 'US English male, diphone voice',
  },
  {
    variant: 'kal',
    name: 'Kal (Flite, 8 kHz)',
    gender: 'male',
    languages: ['en-US', 'en'],
    pitchHz: 105,
    stddev: 14,
    description: 'US English male, diphone voice at telephone quality',
  },
  {
    variant: 'awb',
    name: 'Alan (Flite)',
    gender: 'male',
    languages: ['en-GB', 'en'],
    pitchHz: 110,
    stddev: 18,
    description: 'Scottish English male, clustergen voice',
  },
  {
    variant: 'rms',
    name: 'Richard (Flite)',
    gender: 'male',
    languages: ['en-US', 'en'],
    pitchHz: 105,
    stddev: 15,
    description: 'US English male, clustergen voice',
  },
];

export class FliteEngine implements Engine {
  readonly id = 'flite';
  readonly capabilities = {
    quality: QUALITY.flite,
    languages: ['en-US', 'en-GB', 'en'],
    mixable: false,
    nativeCloning: false,
    ssml: false,
    wordTimings: false,
    nativePitch: true,
    nativeSpeed: true,
    // Faster than 2.5 Flite keeps its pauses and segments long: the DSP stage stretches the rest.
    speedRange: [0.25, 2.5] as const,
  };
  private readonly voices: VoiceInfo[] = VOICES.map((v) => ({
    id: `flite:${v.variant}`,
    name: v.name,
    gender: v.gender,
    languages: v.languages,
    model: FLITE_MODEL,
    engine: this.id,
    variant: v.variant,
    age: 'adult',
    profile: { pitchHz: v.pitchHz, range: v.stddev, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
    previewText: 'Hello! This is my voice. I can read your text aloud, clearly and naturally.',
    description: v.description,
  }));

  // Node 20's WASI can segfault (see flite-host.mjs): it runs in a helper process, retried once if that dies.
  private readonly host = new ChildHost(new URL('./flite-host.mjs', import.meta.url), ['--expose-gc', '--no-warnings']);

  listVoices(): VoiceInfo[] {
    return this.voices;
  }

  listModels(): ModelInfo[] {
    return [
      {
        id: FLITE_MODEL,
        name: 'Flite',
        engine: this.id,
        type: 'standard',
        languages: this.capabilities.languages,
        genders: ['male', 'female'],
        description: 'CMU Flite English voices: small and natural-sounding statistical parametric speech.',
        voiceCount: this.voices.length,
      },
    ];
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    const semis = totalSemitones(req);
    const f0 = req.voice.profile.pitchHz * Math.pow(2, semis / 12);
    const stddev = req.profile.range * Math.pow(2, semis / 12);
    const speed = totalSpeed(req);
    const nativeF0 = req.voice.variant !== 'rms';
    // Flite reads an argument that names an existing file as a file: pad the text with spaces.
    const args = ['-voice', req.voice.variant, '--setf', `duration_stretch=${(1 / speed).toFixed(4)}`];
    if (nativeF0)
      args.push('--setf', `int_f0_target_mean=${f0.toFixed(1)}`, '--setf', `int_f0_target_stddev=${stddev.toFixed(1)}`);
    args.push(` ${sanitize(req.text)} `);
    const reply = await this.host.request({ args }, true);
    const wav = reply.wav as Uint8Array;
    const { samples, sampleRate } = decodeWav(Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength));
    const shifted = nativeF0 || Math.abs(semis) < 0.01 ? samples : await changeSpeedPitch(samples, sampleRate, 1, semis);
    yield { samples: shifted, sampleRate };
  }

  async close(): Promise<void> {
    await this.host.close();
  }
}

function sanitize(text: string): string {
  return text.replace(/\p{Cc}/gu, ' ');
}
