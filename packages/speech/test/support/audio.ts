/** Test helpers: tones, ffmpeg's own loudness meter, and decoding through ffmpeg. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FFMPEG } from '../../src/audio/ffmpeg.ts';
import { encodeWav } from '../../src/dsp/pcm.ts';

export function tone(hz: number, seconds: number, sampleRate: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) out[i] = amp * Math.sin((2 * Math.PI * hz * i) / sampleRate);
  return out;
}

/** A buzzy, speech-like test signal: a harmonic series at `hz` with a syllable-rate envelope. */
export function buzz(hz: number, seconds: number, sampleRate: number, amp = 0.3): Float32Array {
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) {
    const t = i / sampleRate;
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(2 * Math.PI * hz * h * t) / h;
    out[i] = amp * v * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t));
  }
  return out;
}

/** Integrated loudness as ffmpeg's ebur128 filter measures it. */
export function ffmpegLoudness(samples: Float32Array, sampleRate: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'polyvox-test-'));
  try {
    const file = path.join(dir, 'in.wav');
    writeFileSync(file, encodeWav(samples, sampleRate));
    const r = spawnSync(FFMPEG, ['-hide_banner', '-nostats', '-i', file, '-af', 'ebur128', '-f', 'null', '-'], {
      encoding: 'utf8',
    });
    const m = [...r.stderr.matchAll(/I:\s+(-?[\d.]+) LUFS/g)].pop();
    if (!m) throw new Error(`no loudness in ffmpeg output: ${r.stderr.slice(-500)}`);
    return Number(m[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function seconds(samples: Float32Array, sampleRate: number): number {
  return samples.length / sampleRate;
}
