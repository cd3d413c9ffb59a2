/**
 * Small files that ask a decoder for a great deal: a WAV header claiming a 1 Hz rate or 300
 * channels, hours of silence in a few MB of AAC or MP3 (60 s encoded once, then repeated by
 * copying packets, so making them takes a second or two).
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface HostileFiles {
  /** jfk.wav with its header saying 1 Hz (and 2 bytes a second). */
  wav1Hz: string;
  /** jfk.wav with its header saying 300 channels. */
  wav300Channels: string;
  /** 12 hours of silence, AAC in an m4a. */
  m4a12h: string;
  /** 3 hours of silence, AAC in an m4a. */
  m4a3h: string;
  /** 4 hours of silence, MP3 without a Xing/Info header (nothing states its length). */
  mp3NoHeader4h: string;
}

export async function makeHostileFiles(ffmpeg: string, dir: string, wav: string): Promise<HostileFiles> {
  const ff = (args: string[]) => run(ffmpeg, ['-v', 'error', '-y', ...args]);
  const src = await readFile(wav);
  if (src.toString('latin1', 12, 16) !== 'fmt ') throw new Error(`${wav}: expected the fmt chunk first`);
  const patched = (edit: (b: Buffer) => void) => {
    const b = Buffer.from(src);
    edit(b);
    return b;
  };
  const files: HostileFiles = {
    wav1Hz: path.join(dir, 'rate-1hz.wav'),
    wav300Channels: path.join(dir, 'channels-300.wav'),
    m4a12h: path.join(dir, 'silence-12h.m4a'),
    m4a3h: path.join(dir, 'silence-3h.m4a'),
    mp3NoHeader4h: path.join(dir, 'silence-4h.mp3'),
  };
  await writeFile(
    files.wav1Hz,
    patched((b) => {
      b.writeUInt32LE(1, 24); // sample rate
      b.writeUInt32LE(1 * b.readUInt16LE(32), 28); // byte rate = rate × block align
    }),
  );
  await writeFile(
    files.wav300Channels,
    patched((b) => {
      const bits = b.readUInt16LE(34);
      b.writeUInt16LE(300, 22);
      b.writeUInt16LE((300 * bits) / 8, 32);
      b.writeUInt32LE((b.readUInt32LE(24) * 300 * bits) / 8, 28);
    }),
  );
  const m4aMinute = path.join(dir, 'minute.m4a');
  const mp3Minute = path.join(dir, 'minute.mp3');
  await ff(['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '60', '-c:a', 'aac', '-b:a', '16k', m4aMinute]);
  await ff(['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '60', '-c:a', 'libmp3lame', '-b:a', '8k', mp3Minute]);
  await ff(['-stream_loop', String(12 * 60 - 1), '-i', m4aMinute, '-c', 'copy', files.m4a12h]);
  await ff(['-stream_loop', String(3 * 60 - 1), '-i', m4aMinute, '-c', 'copy', files.m4a3h]);
  await ff(['-stream_loop', String(4 * 60 - 1), '-i', mp3Minute, '-c', 'copy', '-write_xing', '0', files.mp3NoHeader4h]);
  return files;
}

/** Samples the process's resident memory and the bytes under `dir` every few ms, keeping the peaks. */
export function watchPeaks(dirSize: () => Promise<number>): { stop(): Promise<{ rss: number; disk: number }> } {
  let rss = process.memoryUsage().rss;
  let disk = 0;
  let busy = false;
  const timer = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
    if (busy) return;
    busy = true;
    void dirSize()
      .then((n) => (disk = Math.max(disk, n)))
      .catch(() => {})
      .finally(() => (busy = false));
  }, 5);
  return {
    async stop() {
      clearInterval(timer);
      rss = Math.max(rss, process.memoryUsage().rss);
      disk = Math.max(disk, await dirSize().catch(() => 0));
      return { rss, disk };
    },
  };
}
