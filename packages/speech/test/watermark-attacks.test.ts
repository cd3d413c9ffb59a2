/**
 * The watermark after what people do to audio, at small scale (bench/watermark.ts measures it over
 * 200 clips): mp3 through ffmpeg, telephone resampling, gain, noise, a crop, speed changes and music
 * mixed under.
 * Clips of 8 s (the bench holds the 5 s goal); all deterministic.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FFMPEG } from '../src/audio/ffmpeg.ts';
import { decodeWav, encodeWav, resamplePolyphase } from '../src/formats/index.ts';
import { detectWatermark, embedWatermark } from '../src/watermark/index.ts';
import { LJ_FILES } from './support/fixtures.ts';

const KEY = new Uint8Array(32).map((_, i) => (i * 91 + 3) & 255);
const RATE = 22050;
const dir = mkdtempSync(path.join(tmpdir(), 'polyvox-wm-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function wav(b: Buffer): { samples: Float32Array; sampleRate: number } {
  return decodeWav(new Uint8Array(b.buffer, b.byteOffset, b.length));
}

/** The LJ recordings joined (about 50 s), and two 8 s hosts from it. */
const long = (() => {
  const parts = LJ_FILES.map((f) => wav(readFileSync(f)).samples);
  const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return all;
})();
const hosts = [0, 20].map((s) => long.subarray(s * RATE, (s + 8) * RATE));

let n = 0;
function ffmpeg(x: Float32Array, rate: number, args: string[], ext: string, outRate = rate): Float32Array {
  const i = path.join(dir, `in${n}.wav`),
    o = path.join(dir, `out${n}.${ext}`),
    back = path.join(dir, `back${n++}.wav`);
  writeFileSync(i, encodeWav(x, rate));
  const run = (a: string[]) => execFileSync(FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', ...a]);
  run(['-i', i, ...args, o]);
  run(['-i', o, '-ac', '1', '-ar', String(outRate), '-c:a', 'pcm_s16le', back]);
  return wav(readFileSync(back)).samples;
}

/**
 * Music 10 dB under the speech: chords of three notes and a bass, a new one every half second, each
 * struck and decaying (as the bench's), at the speech's power less 10 dB.
 */
function musicUnder(x: Float32Array): Float32Array {
  const roots = [220, 293.7, 261.6, 392, 329.6, 246.9, 349.2];
  const m = new Float32Array(x.length);
  const beat = RATE / 2;
  for (let i = 0; i < x.length; i++) {
    const root = roots[Math.floor(i / beat) % roots.length]!;
    const t = (i % beat) / RATE;
    let v = 0;
    for (const f of [root, root * 1.26, root * 1.5, root / 2]) v += Math.sin((2 * Math.PI * f * i) / RATE);
    m[i] = v * Math.exp(-t * 4) * (1 - Math.exp(-t * 200));
  }
  let px = 0,
    pm = 0;
  for (let i = 0; i < x.length; i++) {
    px += x[i]! * x[i]!;
    pm += m[i]! * m[i]!;
  }
  const k = Math.sqrt(px / pm / 10);
  return x.map((v, i) => v + k * m[i]!);
}

const attacks: Record<string, (x: Float32Array) => { x: Float32Array; rate: number }> = {
  'music mixed 10 dB under': (x) => ({ x: musicUnder(x), rate: RATE }),
  'mp3 64 kb/s (libmp3lame)': (x) => ({ x: ffmpeg(x, RATE, ['-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3'), rate: RATE }),
  'resampled to 8 kHz': (x) => ({ x: ffmpeg(x, RATE, ['-ar', '8000'], 'wav', 8000), rate: 8000 }),
  'gain +10 dB': (x) => ({ x: x.map((v) => v * 3.1623), rate: RATE }),
  'gain -10 dB': (x) => ({ x: x.map((v) => v * 0.31623), rate: RATE }),
  'cropped (1.37 s off the start, 0.5 s off the end)': (x) => ({
    x: x.subarray(Math.round(1.37 * RATE), x.length - RATE / 2),
    rate: RATE,
  }),
  'tempo +5% (atempo)': (x) => ({ x: ffmpeg(x, RATE, ['-af', 'atempo=1.05'], 'wav'), rate: RATE }),
  'tempo -5% (atempo)': (x) => ({ x: ffmpeg(x, RATE, ['-af', 'atempo=0.95'], 'wav'), rate: RATE }),
  'speed +5% (asetrate)': (x) => ({
    x: ffmpeg(x, RATE, ['-af', `asetrate=${RATE * 1.05},aresample=${RATE}`], 'wav'),
    rate: RATE,
  }),
  'speed -5% (asetrate)': (x) => ({
    x: ffmpeg(x, RATE, ['-af', `asetrate=${RATE * 0.95},aresample=${RATE}`], 'wav'),
    rate: RATE,
  }),
};

describe('the watermark under attack', () => {
  const marked = hosts.map((h) => embedWatermark(h, RATE, { key: KEY, payload: 99 }));

  it.each(Object.keys(attacks))('is detected after %s', (name) => {
    for (const [i, y] of marked.entries()) {
      const a = attacks[name]!(y);
      const r = detectWatermark(a.x, a.rate, KEY);
      expect(r.detected, `host ${i}: score ${r.score.toFixed(2)}`).toBe(true);
      // The same attack on the unmarked host finds nothing.
      const u = attacks[name]!(hosts[i]!);
      expect(detectWatermark(u.x, u.rate, KEY).detected).toBe(false);
    }
  });

  it('is detected under white noise at 20 dB SNR in 16 s (in 5 s it often is not: see the bench)', () => {
    const host = long.subarray(0, 16 * RATE);
    const y = embedWatermark(host, RATE, { key: KEY, payload: 5 });
    let p = 0;
    for (const v of host) p += v * v;
    const s = Math.sqrt(p / host.length / 100) * Math.sqrt(12);
    let seed = 12345;
    const noisy = y.map((v) => v + s * ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5));
    expect(detectWatermark(noisy, RATE, KEY).detected).toBe(true);
  });

  it('works on a clip made at one rate and heard at another', () => {
    const y = resamplePolyphase(marked[0]!, RATE, 44100);
    expect(detectWatermark(y, 44100, KEY).detected).toBe(true);
  });
});
