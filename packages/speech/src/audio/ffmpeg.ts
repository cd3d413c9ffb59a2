/**
 * ffmpeg (the static build from @ffmpeg-installer/ffmpeg) as a child process, for decoding what
 * users upload. Files go through temp files (a pipe can hide a failed decode: an m4a with its index
 * at the end yields 0 bytes and exit 0). Encoding is in-process (encoders.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { lowerPriority } from '../threads/priority.ts';
import { SpeechError } from '../core/errors.ts';
import { decodeWav } from '../dsp/pcm.ts';

export const FFMPEG = ffmpegInstaller.path;

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

/** Decodes any audio ffmpeg reads into mono float PCM at `sampleRate` (or the file's own rate). */
export async function decodeAudio(
  data: Buffer,
  ext: string,
  sampleRate?: number,
  /** Decodes only this many seconds from the start (a check of a long file reads its beginning). */
  maxSec?: number,
): Promise<{ samples: Float32Array; sampleRate: number }> {
  return withTempDir(async (dir) => {
    const input = path.join(dir, `in.${ext.replace(/[^a-z0-9]/gi, '') || 'bin'}`);
    const output = path.join(dir, 'out.wav');
    await writeFile(input, data);
    await runFfmpeg([
      '-i',
      input,
      ...(maxSec ? ['-t', String(maxSec)] : []),
      '-ac',
      '1',
      ...(sampleRate ? ['-ar', String(sampleRate)] : []),
      '-c:a',
      'pcm_s16le',
      output,
    ]);
    const wav = await readFile(output);
    if (wav.length <= 44)
      throw new SpeechError('VALIDATION_FAILED', 'the audio decoded to nothing', {
        params: { field: 'file', rule: 'decodable audio' },
      });
    return decodeWav(wav);
  });
}
