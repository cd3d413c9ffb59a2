/**
 * ffmpeg (the static build from @ffmpeg-installer/ffmpeg) as a child process. Whole files go
 * through temp files (a pipe can hide a failed decode: an m4a with its index at the end yields
 * 0 bytes and exit 0), and every output's size is checked against what its duration implies.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { lowerPriority } from '../pool/priority.ts';
import { SpeechError } from '../errors.ts';
import { decodeWav, encodeWav, floatToInt16 } from '../dsp/pcm.ts';
import type { AudioFormat } from '../types.ts';

export const FFMPEG = ffmpegInstaller.path;

export const BITRATES: Record<'mp3' | 'opus', number> = { mp3: 64_000, opus: 32_000 };

/** ffmpeg output options per format (input is 16-bit mono PCM). */
export function codecArgs(format: 'mp3' | 'opus'): string[] {
  return format === 'mp3'
    ? ['-c:a', 'libmp3lame', '-b:a', `${BITRATES.mp3 / 1000}k`, '-f', 'mp3']
    : ['-c:a', 'libopus', '-b:a', `${BITRATES.opus / 1000}k`, '-application', 'voip', '-f', 'ogg'];
}

export function runFfmpeg(args: string[], timeoutMs = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (p.pid) lowerPriority(p.pid);
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()).length > 8000 && (stderr = stderr.slice(-4000)));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', (e) => {
      clearTimeout(timer);
      reject(new SpeechError('INTERNAL', `ffmpeg failed to start: ${e.message}`, { cause: e }));
    });
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new SpeechError('INTERNAL', `ffmpeg exited with ${signal ?? code}: ${stderr.trim().slice(-500)}`));
    });
  });
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'polyvox-ffmpeg-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The smallest plausible encoded size for `seconds` of audio: catches truncated or empty output. */
export function minimumBytes(format: AudioFormat, seconds: number, sampleRate: number): number {
  const samples = Math.round(seconds * sampleRate);
  if (format === 'pcm') return samples * 2;
  if (format === 'wav') return 44 + samples * 2;
  const bytesPerSec = BITRATES[format] / 8;
  // VBR and silence can go well under the nominal rate; anything this small is broken output.
  return Math.floor(seconds * bytesPerSec * (format === 'mp3' ? 0.5 : 0.15)) + (format === 'opus' ? 40 : 0);
}

export async function encodeAudio(samples: Float32Array, sampleRate: number, format: AudioFormat): Promise<Buffer> {
  const seconds = samples.length / sampleRate;
  if (format === 'pcm') return floatToInt16(samples);
  if (format === 'wav') return encodeWav(samples, sampleRate);
  return withTempDir(async (dir) => {
    const input = path.join(dir, 'in.wav');
    const output = path.join(dir, `out.${format === 'opus' ? 'ogg' : 'mp3'}`);
    await writeFile(input, encodeWav(samples, sampleRate));
    await runFfmpeg(['-i', input, ...codecArgs(format), output]);
    const out = await readFile(output);
    const min = minimumBytes(format, seconds, sampleRate);
    if (out.length < Math.max(1, min))
      throw new SpeechError(
        'INTERNAL',
        `ffmpeg wrote ${out.length} bytes of ${format} for ${seconds.toFixed(2)} s (expected at least ${min})`,
      );
    return out;
  });
}

/** Decodes any audio ffmpeg reads into mono float PCM at `sampleRate` (or the file's own rate). */
export async function decodeAudio(
  data: Buffer,
  ext: string,
  sampleRate?: number,
): Promise<{ samples: Float32Array; sampleRate: number }> {
  return withTempDir(async (dir) => {
    const input = path.join(dir, `in.${ext.replace(/[^a-z0-9]/gi, '') || 'bin'}`);
    const output = path.join(dir, 'out.wav');
    await writeFile(input, data);
    await runFfmpeg(['-i', input, '-ac', '1', ...(sampleRate ? ['-ar', String(sampleRate)] : []), '-c:a', 'pcm_s16le', output]);
    const wav = await readFile(output);
    if (wav.length <= 44)
      throw new SpeechError('VALIDATION_FAILED', 'the audio decoded to nothing', {
        params: { field: 'file', rule: 'decodable audio' },
      });
    return decodeWav(wav);
  });
}
