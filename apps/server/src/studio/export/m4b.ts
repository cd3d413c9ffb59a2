/**
 * An audiobook as M4B (AAC in MP4, ffmpeg's built-in encoder, in a child process at background priority): the PCM
 * goes through its standard input as it is read (with back-pressure), its chapters, title, author and AIGC label
 * through an ffmetadata file, its cover as an attached picture. MP4 keeps its index at the front only once the file
 * is whole, so ffmpeg writes a temporary file that is then sent as it is read and removed. A client that leaves, or
 * an error on either side, kills the child and removes the folder; nothing is left running and no pipe error escapes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FFMPEG, lowerPriority } from '@polyvox/speech';
import { aigcJson, type AigcRecord } from '@polyvox/speech/formats';
import type { Storage } from '../../platform/storage.js';
import type { SpeechHost } from '../../speech/speech-host.js';
import type { SnapshotManifest } from '../snapshot.js';
import { exportPcm, type ExportMark } from './pcm.js';
import { EXPORT_RATE, type Timeline } from './timeline.js';

/** AAC's bit rate for speech in mono (about 29 MB an hour). */
const AAC_BITRATE = '64k';
const COVER_EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/jpg': 'jpg', 'image/png': 'png' };

/** ffmetadata escapes `=`, `;`, `#`, `\` and line ends with a backslash. */
const meta = (s: string): string => s.replace(/[=;#\\\n]/g, (c) => `\\${c}`);

/** The ffmetadata file: the book's tags, its AIGC label as a comment, and each chapter's start and end (ms). */
export function ffmetadata(manifest: SnapshotManifest, placed: Timeline, record: AigcRecord): string {
  const { project } = manifest;
  const title = project.title ?? project.name;
  const lines = [';FFMETADATA1', `title=${meta(title)}`, `album=${meta(title)}`, 'genre=Audiobook'];
  if (project.author) lines.push(`artist=${meta(project.author)}`, `album_artist=${meta(project.author)}`);
  if (project.language) lines.push(`language=${meta(project.language)}`);
  lines.push(`comment=${meta(`AIGC=${aigcJson(record)}`)}`);
  const ms = (samples: number) => Math.round((samples * 1000) / EXPORT_RATE);
  for (const c of placed.chapters)
    lines.push('[CHAPTER]', 'TIMEBASE=1/1000', `START=${ms(c.start)}`, `END=${ms(c.end)}`, `title=${meta(c.title)}`);
  return `${lines.join('\n')}\n`;
}

export interface M4bDeps {
  storage: Storage;
  /** Its encoder thread marks the PCM on its way to ffmpeg. */
  speech: Pick<SpeechHost, 'get'>;
}

/**
 * The book as M4B bytes, as they are read from the finished file. Encoding happens before the first chunk (minutes
 * for a long book). Throws on ffmpeg's failure; stops when `signal` aborts.
 */
export async function* exportM4b(
  deps: M4bDeps,
  manifest: SnapshotManifest,
  placed: Timeline,
  record: AigcRecord,
  mark: ExportMark,
  signal: AbortSignal,
): AsyncGenerator<Buffer, boolean> {
  const dir = await mkdtemp(path.join(tmpdir(), 'polyvox-m4b-'));
  try {
    const metaFile = path.join(dir, 'meta.txt');
    await writeFile(metaFile, ffmetadata(manifest, placed, record));
    const inputs = ['-f', 's16le', '-ar', String(EXPORT_RATE), '-ac', '1', '-i', 'pipe:0', '-i', metaFile];
    const maps = ['-map', '0:a', '-map_metadata', '1', '-map_chapters', '1'];
    const { cover_key: coverKey, cover_type: coverType } = manifest.project;
    const cover = coverKey ? await deps.storage.get(coverKey) : null;
    const ext = coverType ? COVER_EXT[coverType.toLowerCase()] : undefined;
    if (cover && ext) {
      const coverFile = path.join(dir, `cover.${ext}`);
      await writeFile(coverFile, cover);
      inputs.push('-i', coverFile);
      maps.push('-map', '2:v', '-c:v', 'copy', '-disposition:v:0', 'attached_pic');
    }
    const out = path.join(dir, 'book.m4b');
    const args = [...inputs, ...maps, '-c:a', 'aac', '-b:a', AAC_BITRATE, '-movflags', '+faststart', '-f', 'mp4', out];
    const speech = await deps.speech.get();
    await runEncoder(args, exportPcm(speech, deps.storage, placed.paragraphs, mark, signal), signal);
    signal.throwIfAborted();
    const file = createReadStream(out, { highWaterMark: 256 * 1024 });
    try {
      for await (const chunk of file) yield chunk as Buffer;
    } finally {
      file.destroy();
    }
    return true;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs ffmpeg with `pcm` on its standard input; resolves once it exited 0, kills it on any failure or abort. */
async function runEncoder(args: string[], pcm: AsyncGenerator<Buffer, boolean>, signal: AbortSignal): Promise<void> {
  const child = spawn(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  if (child.pid) lowerPriority(child.pid);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  // A child that dies mid-write breaks the pipe: its exit is the error that counts, not EPIPE.
  child.stdin.on('error', () => {});
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (e) => reject(new Error(`ffmpeg failed to start: ${e.message}`, { cause: e })));
    child.once('close', (code, sig) =>
      code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${sig ?? code}: ${stderr.trim().slice(-500)}`)),
    );
  });
  exited.catch(() => {});
  const kill = () => child.kill('SIGKILL');
  signal.addEventListener('abort', kill, { once: true });
  let fed = false;
  try {
    const closed = exited.then(() => Promise.reject(new Error('ffmpeg ended before its input')));
    closed.catch(() => {});
    for (;;) {
      const next = await pcm.next();
      if (next.done) {
        if (!next.value) throw new Error('the audio stopped before its end');
        break;
      }
      if (!child.stdin.write(next.value)) await Promise.race([once(child.stdin, 'drain'), closed]);
    }
    child.stdin.end();
    fed = true;
    await exited;
  } finally {
    signal.removeEventListener('abort', kill);
    await pcm.return(false);
    if (!fed || child.exitCode === null) {
      kill();
      await exited.catch(() => {});
    }
  }
}
