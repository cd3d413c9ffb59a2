/**
 * What an uploaded sample is, judged from its bytes (never its name or declared type), and its
 * decoded audio. ffmpeg reads the temp FILE the caller wrote (a pipe hides a failed m4a decode:
 * an index at the end yields 0 bytes and exit 0), with the demuxer the bytes named, so a renamed
 * file cannot steer it to another parser.
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { parseStream } from 'music-metadata';
import { FFMPEG } from '../audio/ffmpeg.ts';
import { SpeechError } from '../core/errors.ts';
import { lowerPriority } from '../threads/priority.ts';

export type SampleFormat = 'mp3' | 'm4a' | 'wav';

export interface SampleProbe {
  format: SampleFormat;
  codec: string;
  /** Seconds of decoded audio (not what the header claims). */
  durationSec: number;
  /** The file's own rate and channels. */
  sampleRate: number;
  channels: number;
}

/** Bounds of a clone sample, in seconds of decoded audio. */
export const SAMPLE_MIN_SEC = 10;
export const SAMPLE_MAX_SEC = 300;

const MIME: Record<SampleFormat, string> = { mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/wav' };
const DEMUXER: Record<SampleFormat, string> = { mp3: 'mp3', m4a: 'mov', wav: 'wav' };

const unsupported = (why: string, cause?: unknown): SpeechError =>
  new SpeechError('UNSUPPORTED_FILE_TYPE', `not an mp3, m4a or wav audio file: ${why}`, cause ? { cause } : {});

// MPEG audio: bitrates (kb/s) of layer III by [MPEG-1, MPEG-2/2.5] and sample rates by version.
const BITRATES = [
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** Length in bytes of the layer III frame whose header starts at `i`, or 0 if none does. */
function mp3FrameLength(b: Buffer, i: number): number {
  if (i + 4 > b.length || b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) return 0;
  const version = (b[i + 1]! >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5, 1 reserved
  const layer = (b[i + 1]! >> 1) & 3; // 1 = layer III
  const bitrateIndex = b[i + 2]! >> 4;
  const rateIndex = (b[i + 2]! >> 2) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return 0;
  const bitrate = BITRATES[version === 3 ? 0 : 1]![bitrateIndex]! * 1000;
  const rate = RATES[version]![rateIndex]!;
  const padding = (b[i + 2]! >> 1) & 1;
  return Math.floor(((version === 3 ? 144 : 72) * bitrate) / rate) + padding;
}

/** The container, from magic numbers: RIFF/WAVE, an ISO BMFF `ftyp` box, or MPEG layer III frames. */
export function sniffFormat(head: Buffer): SampleFormat | undefined {
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') return 'm4a';
  let i = 0;
  if (head.toString('latin1', 0, 3) === 'ID3' && head.length >= 10) {
    // A syncsafe size: seven bits per byte.
    i = 10 + ((head[6]! & 0x7f) << 21) + ((head[7]! & 0x7f) << 14) + ((head[8]! & 0x7f) << 7) + (head[9]! & 0x7f);
    if (head[5]! & 0x10) i += 10;
  }
  // Some encoders pad after the tag: look a little further for the first frame.
  const limit = Math.min(head.length - 4, i + 4096);
  for (let at = i; at <= limit; at++) {
    const len = mp3FrameLength(head, at);
    if (!len) continue;
    // Two frames in a row: a text file never has that by chance.
    if (at + len + 4 <= head.length) {
      if (mp3FrameLength(head, at + len) > 0) return 'mp3';
      continue;
    }
    // The bytes end inside the first frame: only a frame right at the start counts.
    return at === i ? 'mp3' : undefined;
  }
  return undefined;
}

/** Reads the first bytes of a file: enough for an ID3 tag of ordinary size and two frames after it. */
async function readHead(file: string, bytes: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

async function sniffFile(file: string): Promise<SampleFormat> {
  let head = await readHead(file, 64 * 1024);
  if (head.length === 0) throw unsupported('the file is empty');
  // A large ID3 tag (cover art) pushes the first frame further: read past it.
  if (head.toString('latin1', 0, 3) === 'ID3' && head.length >= 10) {
    const tag = 10 + ((head[6]! & 0x7f) << 21) + ((head[7]! & 0x7f) << 14) + ((head[8]! & 0x7f) << 7) + (head[9]! & 0x7f);
    if (tag + 8192 > head.length) head = await readHead(file, Math.min(tag + 8192, 32 * 1024 * 1024));
  }
  const format = sniffFormat(head);
  if (!format) throw unsupported('unrecognised content');
  return format;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

/** Rates and channel counts a recording of a voice can have; a header outside them is hostile or broken. */
export const SAMPLE_RATE_RANGE = { min: 8000, max: 192_000 } as const;
export const SAMPLE_MAX_CHANNELS = 8;
/**
 * What the decoder may produce: one second past the longest sample (so a longer one is seen to be
 * longer, never decoded whole), and a wall-clock bound for the child. A 5-minute sample decodes in
 * well under a second on one core; the bound is for a file built to be slow.
 */
export const DECODE_MAX_SEC = SAMPLE_MAX_SEC + 1;
export const DECODE_TIMEOUT_MS = 60_000;

const tooLong = (durationSec: number, cause?: string): SpeechError => {
  const duration = Math.round(durationSec * 10) / 10;
  return new SpeechError(
    'AUDIO_TOO_LONG',
    `the sample lasts ${cause ? `more than ${SAMPLE_MAX_SEC}` : duration} s; at most ${SAMPLE_MAX_SEC} s${cause ? ` (${cause})` : ''}`,
    { params: { min: SAMPLE_MIN_SEC, max: SAMPLE_MAX_SEC, duration } },
  );
};

/**
 * Decodes with the demuxer the bytes named, to mono float PCM at `sampleRate`, at most `maxSec` of it.
 * The PCM streams from ffmpeg's stdout into a buffer of exactly that size: nothing is written to
 * disk, and no file, however its header lies (a 1 Hz rate, hours of silence in a few kB of AAC),
 * makes the decoder produce more than `maxSec` seconds (`-t`, `-fs`, and the child is killed at the
 * buffer's end) or run longer than `timeoutMs`. `truncated` says the audio went on past `maxSec`.
 * The input is the temp FILE (a pipe can hide a failed m4a decode), only the output is a pipe.
 */
export function decodeCapped(
  file: string,
  format: SampleFormat,
  sampleRate: number,
  opts: { maxSec: number; signal?: AbortSignal | undefined; timeoutMs?: number },
): Promise<{ samples: Float32Array; sampleRate: number; truncated: boolean }> {
  const { signal } = opts;
  const capacity = Math.ceil(opts.maxSec * sampleRate) * 4;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const args = ['-f', DEMUXER[format], '-i', file, '-vn', '-ac', '1', '-ar', String(sampleRate)];
    // ffmpeg's own stops sit a second past the buffer, so audio longer than `maxSec` always
    // overflows it (the resampler can end `-t` a few samples early) and is seen to be longer.
    const slack = sampleRate * 4;
    args.push('-t', String(opts.maxSec + 1), '-fs', String(capacity + slack));
    args.push('-f', 'f32le', '-c:a', 'pcm_f32le', 'pipe:1');
    const p = spawn(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (p.pid) lowerPriority(p.pid);
    const out = Buffer.alloc(capacity);
    let filled = 0;
    let truncated = false;
    let timedOut = false;
    let stderr = '';
    const kill = (): void => void p.kill('SIGKILL');
    p.stdout.on('data', (d: Buffer) => {
      const room = capacity - filled;
      d.copy(out, filled, 0, Math.min(room, d.length));
      filled += Math.min(room, d.length);
      if (d.length > room) {
        // The audio goes on past the cap: what it holds beyond is never read.
        truncated = true;
        kill();
      }
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 8000) stderr = stderr.slice(-4000);
    });
    // A child killed mid-write closes its pipes under us: those errors are the kill's, not the caller's.
    p.stdout.on('error', () => {});
    p.stderr.on('error', () => {});
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs ?? DECODE_TIMEOUT_MS);
    signal?.addEventListener('abort', kill, { once: true });
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
    };
    p.on('error', (e) => {
      done();
      reject(new SpeechError('INTERNAL', `ffmpeg failed to start: ${e.message}`, { cause: e }));
    });
    p.on('close', (code, sig) => {
      done();
      if (signal?.aborted) return reject(abortError(signal));
      if (timedOut) return reject(unsupported(`decoding took longer than ${(opts.timeoutMs ?? DECODE_TIMEOUT_MS) / 1000} s`));
      const whole = filled - (filled % 4);
      if (!truncated && code !== 0)
        return reject(unsupported(`ffmpeg could not decode it (${sig ?? code}): ${stderr.trim().slice(-300)}`));
      const samples = new Float32Array(out.buffer, out.byteOffset, whole / 4).slice();
      if (samples.length === 0) return reject(unsupported('no audio could be decoded'));
      resolve({ samples, sampleRate, truncated });
    });
  });
}

/** As `decodeCapped`, at most one second past the longest sample. */
async function decodeAs(
  file: string,
  format: SampleFormat,
  sampleRate: number,
  signal?: AbortSignal,
): Promise<{ samples: Float32Array; sampleRate: number; truncated: boolean }> {
  return decodeCapped(file, format, sampleRate, { maxSec: DECODE_MAX_SEC, signal });
}

/** Mono float PCM of an accepted upload (mp3, m4a, wav judged from the bytes), at `sampleRate`. */
export async function decodeToPcm(
  file: string,
  sampleRate = 16_000,
  opts: { signal?: AbortSignal } = {},
): Promise<{ samples: Float32Array; sampleRate: number }> {
  const format = await sniffFile(file);
  const { samples } = await decodeAs(file, format, sampleRate, opts.signal);
  return { samples, sampleRate };
}

/** The probe and the decoded audio together: analysis decodes once. */
export async function loadSample(
  file: string,
  sampleRate: number,
  opts: { signal?: AbortSignal } = {},
): Promise<{ probe: SampleProbe; pcm: { samples: Float32Array; sampleRate: number } }> {
  const format = await sniffFile(file);
  let meta;
  try {
    // Read with the parser of the sniffed container, not one picked from the name; as a stream, so
    // an m4a whose index comes after its audio is read to the end.
    const { size } = await stat(file);
    const stream = createReadStream(file);
    try {
      meta = await parseStream(stream, { mimeType: MIME[format], size }, { duration: false, skipCovers: true });
    } finally {
      stream.destroy();
    }
  } catch (e) {
    throw unsupported('unreadable header', e);
  }
  // What the container says, judged before a byte is decoded: a rate or channel count no voice
  // recording has, or a length past the limit, is refused here (the decoder's cap backs this up for
  // a header that understates its length).
  const { sampleRate: fileRate, numberOfChannels, duration: declared } = meta.format;
  if (fileRate !== undefined && !(fileRate >= SAMPLE_RATE_RANGE.min && fileRate <= SAMPLE_RATE_RANGE.max))
    throw unsupported(`a sample rate of ${fileRate} Hz`);
  if (numberOfChannels !== undefined && !(numberOfChannels >= 1 && numberOfChannels <= SAMPLE_MAX_CHANNELS))
    throw unsupported(`${numberOfChannels} channels`);
  // A little over the limit is left to the decoded length (encoder padding makes headers round up).
  if (declared !== undefined && Number.isFinite(declared) && declared > SAMPLE_MAX_SEC + 1) throw tooLong(declared);
  const decoded = await decodeAs(file, format, sampleRate, opts.signal);
  const pcm = { samples: decoded.samples, sampleRate: decoded.sampleRate };
  if (decoded.truncated) throw tooLong(DECODE_MAX_SEC, 'decoding stopped there');
  const durationSec = pcm.samples.length / pcm.sampleRate;
  const probe: SampleProbe = {
    format,
    codec: meta.format.codec ?? (format === 'wav' ? 'PCM' : format === 'mp3' ? 'MPEG 1 Layer 3' : 'AAC'),
    durationSec: Math.round(durationSec * 1000) / 1000,
    sampleRate: fileRate ?? 0,
    channels: numberOfChannels ?? 1,
  };
  const params = { min: SAMPLE_MIN_SEC, max: SAMPLE_MAX_SEC, duration: Math.round(durationSec * 10) / 10 };
  if (durationSec < SAMPLE_MIN_SEC)
    throw new SpeechError('AUDIO_TOO_SHORT', `the sample lasts ${params.duration} s; at least ${SAMPLE_MIN_SEC} s`, {
      params,
    });
  if (durationSec > SAMPLE_MAX_SEC) throw tooLong(durationSec);
  return { probe, pcm };
}

/**
 * Judges the container from the bytes, decodes to measure the real duration. Throws
 * UNSUPPORTED_FILE_TYPE for anything else (text, renamed, corrupt, undecodable, empty), and
 * AUDIO_TOO_SHORT / AUDIO_TOO_LONG outside 10 s..300 s of decoded audio.
 */
export async function probeSample(file: string, opts: { signal?: AbortSignal } = {}): Promise<SampleProbe> {
  // 8 kHz is plenty to count the samples: the decode is cheap.
  return (await loadSample(file, 8000, opts)).probe;
}
