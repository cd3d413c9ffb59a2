import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FFMPEG, measurePcm } from '@polyvox/speech';

const run = promisify(execFile);

/** Decodes any audio the server sends with ffmpeg (through a temp file) and returns its length in seconds. */
export async function decodedSeconds(audio: Buffer, inputFormat?: string): Promise<number> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-audio-'));
  try {
    const input = path.join(dir, 'in');
    await fs.writeFile(input, audio);
    const fmt = inputFormat === 'pcm' ? ['-f', 's16le', '-ar', '24000', '-ac', '1'] : [];
    const output = path.join(dir, 'out.raw');
    await run(FFMPEG, ['-v', 'error', ...fmt, '-i', input, '-f', 's16le', '-ac', '1', '-ar', '16000', output]);
    const { size } = await fs.stat(output);
    return size / 2 / 16000;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The voice measures (F0 and its range, …) of 16-bit little-endian PCM at `rate`. */
export function measureS16(pcm: Buffer, rate = 24_000): ReturnType<typeof measurePcm> {
  const s = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
  return measurePcm(
    Float32Array.from(s, (x) => x / 32768),
    rate,
  );
}
