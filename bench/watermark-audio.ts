/**
 * Audio for the watermark bench: clips synthesized by the package (no watermark), the attacks
 * (ffmpeg as a child process, or plain arithmetic), and the music and babble to mix under.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FFMPEG } from '@polyvox/speech';
import { decodeWav, encodeWav, resamplePolyphase } from '@polyvox/speech/formats';
import { encodeAudio, runFfmpeg } from '@polyvox/speech/measure';

void FFMPEG;

/** A seeded generator, so the bench draws the same crops and noise every run. */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

export function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

export const power = (x: Float32Array): number => {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += x[i]! * x[i]!;
  return e / Math.max(1, x.length);
};

function toWav(x: Float32Array, rate: number): Buffer {
  return Buffer.from(encodeWav(x, rate));
}

function fromWav(b: Buffer): { samples: Float32Array; sampleRate: number } {
  return decodeWav(new Uint8Array(b.buffer, b.byteOffset, b.length));
}

/** Runs ffmpeg over `x`: `steps` each take an input file and the output's path and give ffmpeg's arguments. */
export async function throughFfmpeg(
  x: Float32Array,
  rate: number,
  steps: { ext: string; args: (input: string, output: string) => string[] }[],
  outRate = rate,
): Promise<Float32Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'polyvox-wm-'));
  try {
    let input = path.join(dir, 'in.wav');
    await writeFile(input, toWav(x, rate));
    for (const [i, s] of steps.entries()) {
      const output = path.join(dir, `s${i}.${s.ext}`);
      await runFfmpeg(s.args(input, output));
      input = output;
    }
    const out = path.join(dir, 'out.wav');
    await runFfmpeg(['-i', input, '-ac', '1', '-ar', String(outRate), '-c:a', 'pcm_s16le', out]);
    return fromWav(await readFile(out)).samples;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Our own mp3 (the server's encoder, 64 kb/s), then re-encoded at 64 kb/s by ffmpeg's libmp3lame, decoded. */
export async function ownMp3ThenLame(x: Float32Array, rate: number): Promise<Float32Array> {
  const own = await encodeAudio(x, rate, 'mp3');
  const dir = await mkdtemp(path.join(tmpdir(), 'polyvox-wm-'));
  try {
    const a = path.join(dir, 'own.mp3'),
      b = path.join(dir, 'lame.mp3'),
      c = path.join(dir, 'out.wav');
    await writeFile(a, own);
    await runFfmpeg(['-i', a, '-c:a', 'libmp3lame', '-b:a', '64k', b]);
    await runFfmpeg(['-i', b, '-ac', '1', '-ar', String(rate), '-c:a', 'pcm_s16le', c]);
    return fromWav(await readFile(c)).samples;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type Attack = (x: Float32Array, rate: number, random: () => number) => Promise<{ x: Float32Array; rate: number }>;

const same = (x: Float32Array, rate: number) => ({ x, rate });

/** Gain in float (a file made louder by 10 dB would clip; clipping is another attack). */
function gain(db: number): Attack {
  return async (x, rate) =>
    same(
      x.map((v) => v * 10 ** (db / 20)),
      rate,
    );
}

function mixUnder(make: (n: number, rate: number, random: () => number) => Float32Array, snrDb: number): Attack {
  return async (x, rate, random) => {
    const m = make(x.length, rate, random);
    const k = Math.sqrt(power(x) / Math.max(1e-20, power(m)) / 10 ** (snrDb / 10));
    return same(
      x.map((v, i) => v + k * m[i]!),
      rate,
    );
  };
}

/** Chords of three tones and a bass note, a new chord every half second, each note struck and decaying. */
export function music(n: number, rate: number, random: () => number): Float32Array {
  const out = new Float32Array(n);
  const roots = [220, 246.9, 261.6, 293.7, 329.6, 349.2, 392];
  const beat = Math.round(rate * 0.5);
  for (let start = 0; start < n; start += beat) {
    const root = roots[Math.floor(random() * roots.length)]!;
    const notes = [root, root * 1.26, root * 1.5, root / 2];
    for (let i = start; i < Math.min(n, start + beat); i++) {
      const t = (i - start) / rate;
      const env = Math.exp(-t * 4) * (1 - Math.exp(-t * 200));
      let v = 0;
      for (const f of notes) v += Math.sin(2 * Math.PI * f * (i / rate)) + 0.3 * Math.sin(4 * Math.PI * f * (i / rate));
      // A hi-hat on the off-beat.
      const hat = t > 0.25 && t < 0.28 ? gaussian(random) * 0.5 : 0;
      out[i] = env * v * 0.2 + hat;
    }
  }
  return out;
}

const humans = new Map<number, Float32Array[]>();

/** The human recordings in fixtures/speech at `rate`. */
export function humanRecordings(rate: number): Float32Array[] {
  let kept = humans.get(rate);
  if (kept) return kept;
  const dir = path.join(import.meta.dirname, '..', 'fixtures', 'speech');
  kept = readdirSync(dir)
    .filter((f) => f.endsWith('.wav'))
    .map((f) => {
      const w = fromWav(readFileSync(path.join(dir, f)));
      return resamplePolyphase(w.samples, w.sampleRate, rate);
    });
  humans.set(rate, kept);
  return kept;
}

/** Four human voices at once, each from a random point, looped. */
export function babble(n: number, rate: number, random: () => number): Float32Array {
  const rec = humanRecordings(rate);
  const out = new Float32Array(n);
  for (let v = 0; v < 4; v++) {
    const r = rec[Math.floor(random() * rec.length)]!;
    const off = Math.floor(random() * r.length);
    const k = 1 / Math.sqrt(power(r));
    for (let i = 0; i < n; i++) out[i] = out[i]! + r[(off + i) % r.length]! * k;
  }
  return out;
}

export const ATTACKS: Record<string, Attack> = {
  'none (5 s crop)': async (x, rate) => same(x, rate),
  'own mp3 64k → lame 64k': async (x, rate) => same(await ownMp3ThenLame(x, rate), rate),
  'opus 24k': async (x, rate) => ({
    x: await throughFfmpeg(
      x,
      rate,
      [{ ext: 'ogg', args: (i, o) => ['-i', i, '-ar', '48000', '-c:a', 'libopus', '-b:a', '24k', o] }],
      rate,
    ),
    rate,
  }),
  'resample 16 kHz': async (x, rate) => ({ x: await throughFfmpeg(x, rate, [], 16000), rate: 16000 }),
  'resample 8 kHz': async (x, rate) => ({ x: await throughFfmpeg(x, rate, [], 8000), rate: 8000 }),
  'gain +10 dB': gain(10),
  'gain -10 dB': gain(-10),
  'white noise 20 dB SNR': async (x, rate, random) => {
    const s = Math.sqrt(power(x) / 100);
    return same(
      x.map((v) => v + s * gaussian(random)),
      rate,
    );
  },
  'tempo +5% (atempo)': async (x, rate) => ({
    x: await throughFfmpeg(x, rate, [{ ext: 'wav', args: (i, o) => ['-i', i, '-af', 'atempo=1.05', o] }]),
    rate,
  }),
  'tempo -5% (atempo)': async (x, rate) => ({
    x: await throughFfmpeg(x, rate, [{ ext: 'wav', args: (i, o) => ['-i', i, '-af', 'atempo=0.95', o] }]),
    rate,
  }),
  'speed +5% (asetrate)': async (x, rate) => ({
    x: await throughFfmpeg(x, rate, [
      { ext: 'wav', args: (i, o) => ['-i', i, '-af', `asetrate=${Math.round(rate * 1.05)},aresample=${rate}`, o] },
    ]),
    rate,
  }),
  'speed -5% (asetrate)': async (x, rate) => ({
    x: await throughFfmpeg(x, rate, [
      { ext: 'wav', args: (i, o) => ['-i', i, '-af', `asetrate=${Math.round(rate * 0.95)},aresample=${rate}`, o] },
    ]),
    rate,
  }),
  'music 10 dB under': mixUnder(music, 10),
  'babble 10 dB under': mixUnder(babble, 10),
};
