/**
 * In-process mp3 and Ogg Opus encoders: LAME (wasm-media-encoders) and libopus (opusscript),
 * both WebAssembly. Spawning ffmpeg cost more than the encode itself on a one-sentence request,
 * and an in-process encoder hands back each frame as soon as it exists, so a stream is never held
 * back by a pipe's buffering. Encoders run synchronously in the thread that calls them: the server
 * calls them through the encoder thread (encoder-host.ts), never on its event loop.
 */
import { createEncoder, createMp3Encoder, type WasmMediaEncoder } from 'wasm-media-encoders';
import OpusScript from 'opusscript';
import { SpeechError } from '../core/errors.ts';
import { encodeWav, floatToInt16, wavHeader } from '../dsp/pcm.ts';
import { resample } from '../dsp/resample.ts';
import type { AudioFormat } from '../core/types.ts';
import { countFrames, infoFrame, parseHeader } from '../formats/mp3.ts';
import { OggOpusWriter, OPUS_PRE_SKIP } from './ogg-opus.ts';

export const BITRATES: Record<'mp3' | 'opus', number> = { mp3: 64_000, opus: 32_000 };
const OPUS_RATES = new Set([8000, 12000, 16000, 24000, 48000]);
/** libopus complexity: 6 takes about half the CPU of the default 10, a small loss for speech at 32 kb/s. */
const OPUS_COMPLEXITY = 6;
const OPUS_SET_COMPLEXITY_REQUEST = 4010;

/** A stateful encoder: PCM in, the bytes each call completes out (copies, safe to keep). */
export interface Encoder {
  write(samples: Float32Array): Uint8Array[] | Promise<Uint8Array[]>;
  /** Flushes and frees the encoder. */
  end(): Uint8Array[];
  /** Frees the encoder without finishing the file. */
  free(): void;
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

/** Checks that an encoded file starts as its format must (an MPEG audio frame; an Ogg page with OpusHead). */
export function looksLike(format: 'mp3' | 'opus', data: Uint8Array): boolean {
  if (format === 'mp3') return data.length >= 4 && data[0] === 0xff && (data[1]! & 0xe0) === 0xe0;
  const magic = (at: number, s: string) => [...s].every((c, i) => data[at + i] === c.charCodeAt(0));
  return data.length >= 47 && magic(0, 'OggS') && magic(28, 'OpusHead');
}

// LAME instances are reused: configure() frees and re-creates the encoder state, and compiling
// the WebAssembly module once per thread keeps a new stream from paying for it.
/** A compiled WebAssembly module (the DOM typings that name it are not loaded here). */
type WasmModule = Parameters<typeof createEncoder>[1];
let mp3Module: Promise<WasmModule> | undefined;
const idleMp3: WasmMediaEncoder<'audio/mpeg'>[] = [];

async function takeMp3(): Promise<WasmMediaEncoder<'audio/mpeg'>> {
  const idle = idleMp3.pop();
  if (idle) return idle;
  if (!mp3Module) {
    let resolveModule!: (m: WasmModule) => void;
    mp3Module = new Promise((r) => (resolveModule = r));
    const first = await createMp3Encoder();
    // The module compiled for the first instance serves every later one.
    resolveModule((first as unknown as { module: { module: WasmModule } }).module.module);
    return first;
  }
  return createEncoder('audio/mpeg', await mp3Module);
}

const LAME_RATES = new Set([8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]);

/** The rates each compressed format encodes as they are (MPEG-1/2/2.5 for mp3; libopus's five). */
export const NATIVE_RATES: Readonly<Record<'mp3' | 'opus', readonly number[]>> = {
  mp3: [...LAME_RATES],
  opus: [...OPUS_RATES],
};

class Mp3Encoder implements Encoder {
  private lame: WasmMediaEncoder<'audio/mpeg'> | undefined;
  private started = false;
  /** A whole file's frames so far, and the samples they hold. */
  private kept: Uint8Array[] = [];
  private samplesIn = 0;

  /** `whole`: the file is given out at `end`, all at once, so its Info frame can carry the exact length. */
  constructor(
    lame: WasmMediaEncoder<'audio/mpeg'>,
    private readonly sampleRate: number,
    private readonly whole = false,
  ) {
    lame.configure({
      sampleRate,
      channels: 1,
      bitrate: (BITRATES.mp3 / 1000) as 64,
      // Keep the rate (LAME would pick a lower one for 64 kb/s mono); a rate it lacks is resampled.
      ...(LAME_RATES.has(sampleRate) ? { outputSampleRate: sampleRate as 24000 } : {}),
    });
    this.lame = lame;
  }

  write(samples: Float32Array): Uint8Array[] {
    if (!this.lame) throw new SpeechError('INTERNAL', 'the mp3 encoder is closed');
    // The result is a view into the WebAssembly heap, valid until the next call.
    const out = this.lame.encode([samples]).slice();
    if (this.whole) {
      this.kept.push(out);
      this.samplesIn += samples.length;
      return [];
    }
    if (!out.length) return [];
    const first = this.started ? [] : [this.infoFor(out)];
    this.started = true;
    return [...first, out];
  }

  /** A stream's Info frame carries the encoder delay only: its length is not known yet. */
  private infoFor(out: Uint8Array): Uint8Array {
    const h = parseHeader(out, 0);
    if (!h) throw new SpeechError('INTERNAL', 'the mp3 encoder did not start with an mp3 frame');
    return infoFrame(h);
  }

  private finish(): Uint8Array {
    if (!this.lame) return new Uint8Array(0);
    const out = this.lame.finalize().slice();
    idleMp3.push(this.lame);
    this.lame = undefined;
    return out;
  }

  end(): Uint8Array[] {
    if (this.whole) {
      const all = concatBytes([...this.kept, this.finish()]);
      this.kept = [];
      const walked = countFrames(all);
      if (!walked) throw new SpeechError('INTERNAL', 'the mp3 encoder wrote something that is not whole mp3 frames');
      const samplesOut = Math.round((this.samplesIn * walked.first.sampleRate) / this.sampleRate);
      return [infoFrame(walked.first, { frames: walked.frames, bytes: all.length, samples: samplesOut }), all];
    }
    const out = this.finish();
    if (!out.length) return [];
    const first = this.started ? [] : [this.infoFor(out)];
    this.started = true;
    return [...first, out];
  }

  free(): void {
    // A half-finished instance is dropped, not reused.
    this.lame = undefined;
    this.kept = [];
  }
}

class OpusEncoder implements Encoder {
  private readonly opus: OpusScript;
  private readonly ogg: OggOpusWriter;
  private readonly frame: number;
  /** Samples that do not yet fill a 20 ms frame. */
  private rest = new Int16Array(0);
  private total = 0;
  private started = false;
  private closed = false;

  constructor(private readonly rate: number) {
    this.opus = new OpusScript(rate as 24000, 1, OpusScript.Application.VOIP);
    this.opus.setBitrate(BITRATES.opus);
    this.opus.encoderCTL(OPUS_SET_COMPLEXITY_REQUEST, OPUS_COMPLEXITY);
    this.ogg = new OggOpusWriter(rate);
    this.frame = rate / 50;
  }

  private encodeFrames(pcm: Int16Array): void {
    const all = new Int16Array(this.rest.length + pcm.length);
    all.set(this.rest);
    all.set(pcm, this.rest.length);
    let i = 0;
    for (; i + this.frame <= all.length; i += this.frame) {
      const frame = Buffer.from(all.buffer, all.byteOffset + i * 2, this.frame * 2);
      this.ogg.add(new Uint8Array(this.opus.encode(frame, this.frame)), (this.frame * 48000) / this.rate);
    }
    this.rest = all.slice(i);
  }

  private head(): Uint8Array[] {
    if (this.started) return [];
    this.started = true;
    return this.ogg.headers();
  }

  write(samples: Float32Array): Uint8Array[] {
    if (this.closed) throw new SpeechError('INTERNAL', 'the opus encoder is closed');
    this.total += samples.length;
    const pcm = floatToInt16(samples);
    this.encodeFrames(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2));
    return [...this.head(), ...this.ogg.pages()];
  }

  end(): Uint8Array[] {
    if (this.closed) return [];
    const head = this.head();
    // Zeros past the end push the encoder's look-ahead out, then fill the last frame.
    const lookahead = Math.ceil((OPUS_PRE_SKIP * this.rate) / 48000);
    const pad = lookahead + ((this.frame - ((this.rest.length + lookahead) % this.frame)) % this.frame);
    this.encodeFrames(new Int16Array(pad));
    const end = OPUS_PRE_SKIP + Math.round((this.total * 48000) / this.rate);
    const pages = this.ogg.pages(true, end);
    this.free();
    return [...head, ...pages];
  }

  free(): void {
    if (this.closed) return;
    this.closed = true;
    this.opus.delete();
  }
}

/** Opens a stateful encoder of `format` for mono PCM at `sampleRate`. */
export async function openEncoder(format: AudioFormat, sampleRate: number, whole = false): Promise<Encoder> {
  if (format === 'pcm' || format === 'wav') {
    let first = format === 'wav';
    // A whole WAV's header names its length, known only at the end: the header given first is filled in then (a whole
    // file's pieces are kept until its end, so the file carries the header as filled in).
    const header = whole && format === 'wav' ? wavHeader(sampleRate, 0) : undefined;
    let bytes = 0;
    return {
      write(samples) {
        const data = floatToInt16(samples);
        bytes += data.length;
        if (!first) return [data];
        first = false;
        return [header ?? wavHeader(sampleRate, 0xffffffff), data];
      },
      end() {
        if (header) header.set(wavHeader(sampleRate, bytes));
        return first ? [header ?? wavHeader(sampleRate, 0)] : [];
      },
      free() {},
    };
  }
  if (format === 'mp3') return new Mp3Encoder(await takeMp3(), sampleRate, whole);
  if (!OPUS_RATES.has(sampleRate)) return new ResamplingEncoder(sampleRate);
  return new OpusEncoder(sampleRate);
}

/** libopus takes 8–48 kHz in five steps; other rates are resampled to 48 kHz, chunk by chunk. */
class ResamplingEncoder implements Encoder {
  private readonly inner = new OpusEncoder(48000);
  constructor(private readonly rate: number) {}
  async write(samples: Float32Array): Promise<Uint8Array[]> {
    return this.inner.write(await resample(samples, this.rate, 48000));
  }
  end(): Uint8Array[] {
    return this.inner.end();
  }
  free(): void {
    this.inner.free();
  }
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return all;
}

/** Encodes a whole file, checking that the result has its format's header and a plausible size. */
export async function encodeAudio(samples: Float32Array, sampleRate: number, format: AudioFormat): Promise<Buffer> {
  if (format === 'pcm') return floatToInt16(samples);
  if (format === 'wav') return encodeWav(samples, sampleRate);
  const enc = await openEncoder(format, sampleRate, true);
  let parts: Uint8Array[];
  try {
    parts = [...(await enc.write(samples)), ...enc.end()];
  } catch (e) {
    enc.free();
    throw e;
  }
  return checkedFile(format, Buffer.concat(parts), samples.length, sampleRate);
}

/**
 * A whole file encoded from pieces (written one after another to an encoder opened with
 * `whole`), checked like `encodeAudio`'s: the format's header and a plausible size.
 */
export function checkedFile(format: AudioFormat, out: Buffer, samples: number, sampleRate: number): Buffer {
  if (format === 'pcm' || format === 'wav') return out;
  const seconds = samples / sampleRate;
  const min = minimumBytes(format, seconds, sampleRate);
  if (out.length < Math.max(1, min) || !looksLike(format, out))
    throw new SpeechError(
      'INTERNAL',
      `the ${format} encoder wrote ${out.length} bytes for ${seconds.toFixed(2)} s (expected a valid file of at least ${min})`,
    );
  return out;
}
