import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FFMPEG } from '@polyvox/speech';
import type { Client } from './client.js';

const run = promisify(execFile);

/** Real human speech recordings kept in the repository's `fixtures/speech` (jfk.wav: 11 s, 16 kHz). */
export const FIXTURES =
  process.env.SPEECH_FIXTURES ?? path.resolve(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'speech');
export const JFK_WAV = path.join(FIXTURES, 'jfk.wav');
export const JFK_MP3 = path.join(FIXTURES, 'jfk.mp3');

/** Uploads a sample as the console does: multipart `file` plus `consent=true` (unless told otherwise). */
export async function uploadSample(
  c: Client,
  data: Buffer,
  name = 'sample.wav',
  opts: { consent?: string | null; type?: string; mime?: string } = {},
) {
  const form = new FormData();
  const consent = opts.consent === undefined ? 'true' : opts.consent;
  if (consent !== null) form.append('consent', consent);
  form.append('file', new Blob([new Uint8Array(data)], { type: opts.mime ?? 'audio/wav' }), name);
  return c.post(`/files_upload?type=${opts.type ?? 'clone'}`, form);
}

/** Makes audio with ffmpeg into a temp dir and returns its bytes. */
export async function ffmpegMake(args: string[], ext: string): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-design-'));
  try {
    const out = path.join(dir, `out.${ext}`);
    await run(FFMPEG, ['-v', 'error', '-y', ...args, out]);
    return await fs.readFile(out);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** `seconds` of a voiced tone (a pulse-rich sawtooth at 150 Hz with a little noise) as 16 kHz WAV. */
export function toneWav(seconds: number): Promise<Buffer> {
  return ffmpegMake(
    [
      '-f',
      'lavfi',
      '-i',
      `aevalsrc=0.3*(2*mod(150*t\\,1)-1)+0.01*(random(0)-0.5):s=16000:d=${seconds}`,
      '-ac',
      '1',
      '-c:a',
      'pcm_s16le',
    ],
    'wav',
  );
}

/** jfk.wav repeated to `seconds`, as mp3 (ffmpeg writes an Info header with the frame count). */
export function jfkMp3(seconds: number): Promise<Buffer> {
  return ffmpegMake(['-stream_loop', '-1', '-i', JFK_WAV, '-t', String(seconds), '-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3');
}

/**
 * Uploads built to exhaust the decoder (made in a second or two: 60 s encoded once, then repeated
 * by copying packets): jfk.wav with a header saying 1 Hz; 12 h and 3 h of AAC silence in an m4a;
 * 4 h of mp3 silence with no Xing/Info header, so nothing in it states its length.
 */
export async function hostileSamples(): Promise<Record<'wav1Hz' | 'm4a12h' | 'm4a3h' | 'mp3NoHeader4h', Buffer>> {
  const wav = Buffer.from(await fs.readFile(JFK_WAV));
  wav.writeUInt32LE(1, 24); // sample rate
  wav.writeUInt32LE(wav.readUInt16LE(32), 28); // byte rate = 1 × block align
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-hostile-'));
  try {
    const minute = (ext: string, codec: string[]) => {
      const out = path.join(dir, `minute.${ext}`);
      return run(FFMPEG, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '60', ...codec, out]).then(
        () => out,
      );
    };
    const m4a = await minute('m4a', ['-c:a', 'aac', '-b:a', '16k']);
    const mp3 = await minute('mp3', ['-ar', '8000', '-c:a', 'libmp3lame', '-b:a', '8k']);
    const loop = (input: string, minutes: number, extra: string[], ext: string) =>
      ffmpegMake(['-stream_loop', String(minutes - 1), '-i', input, '-c', 'copy', ...extra], ext);
    return {
      wav1Hz: wav,
      m4a12h: await loop(m4a, 12 * 60, [], 'm4a'),
      m4a3h: await loop(m4a, 3 * 60, [], 'm4a'),
      mp3NoHeader4h: await loop(mp3, 4 * 60, ['-write_xing', '0'], 'mp3'),
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
