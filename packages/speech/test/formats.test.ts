import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as formats from '../src/formats/index.ts';
import {
  concatFloat32,
  decodeWav,
  encodeWav,
  firstMp3Frame,
  fixWavSizes,
  floatToInt16,
  G711Encoder,
  id3Size,
  int16ToFloat,
  linearToAlaw,
  linearToUlaw,
  mp3Seconds,
  parseMp3Header,
  parseWavHeader,
  Pcm16Resampler,
  pcmToWav,
  PolyphaseStream,
  resamplePolyphase,
  wavHeader,
} from '../src/formats/index.ts';

const FORMATS_DIR = fileURLToPath(new URL('../src/formats/', import.meta.url));

describe('the formats entry', () => {
  it('imports nothing but its own modules: no node: module, no package, no Buffer or process', () => {
    const files = readdirSync(FORMATS_DIR).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('index.ts');
    for (const file of files) {
      const source = readFileSync(path.join(FORMATS_DIR, file), 'utf8');
      const specifiers = [...source.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]/g)].map(
        (m) => m[1] ?? m[2]!,
      );
      // The one package it reads is the contract's list of the label's keys, a file that imports nothing itself.
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(/^(\.\/[\w-]+\.ts|@polyvox\/contracts\/aigc-keys)$/);
      const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, `${file} uses Buffer`).not.toMatch(/\bBuffer\b/);
      expect(code, `${file} uses process`).not.toMatch(/\bprocess\b/);
      expect(code, `${file} uses require`).not.toMatch(/\brequire\(/);
    }
  });

  it("reads the label's keys from a contract file that imports nothing", () => {
    const keys = readFileSync(fileURLToPath(import.meta.resolve('@polyvox/contracts/aigc-keys')), 'utf8');
    expect(keys).not.toMatch(/^\s*(import|export)[^;]*from\s/m);
    expect(keys).not.toMatch(/\b(Buffer|process|require)\b/);
  });

  it('is the package.json subpath @polyvox/speech/formats', async () => {
    const pkg = JSON.parse(readFileSync(path.join(FORMATS_DIR, '../../package.json'), 'utf8')) as {
      exports: Record<string, string>;
    };
    expect(pkg.exports['./formats']).toBe('./src/formats/index.ts');
    const viaPackage = (await import('@polyvox/speech/formats')) as typeof formats;
    expect(Object.keys(viaPackage).sort()).toEqual(Object.keys(formats).sort());
  });
});

describe('G.711', () => {
  it('compands the reference points of ITU-T G.711', () => {
    // μ-law: silence is 0xFF, full scale 0x80 / 0x00; A-law: silence 0xD5 / 0x55, full scale 0xAA / 0x2A.
    expect([0, 1000, -1000, 32767, -32768].map(linearToUlaw)).toEqual([0xff, 0xce, 0x4e, 0x80, 0x00]);
    expect([0, -1, 1000, -1000, 32767, -32768].map(linearToAlaw)).toEqual([0xd5, 0x55, 0xfa, 0x7a, 0xaa, 0x2a]);
  });

  it('keeps every sample when a chunk splits one', () => {
    const pcm = new Uint8Array(8);
    const view = new DataView(pcm.buffer);
    [0, 1000, -1000, 32767].forEach((v, i) => view.setInt16(i * 2, v, true));
    const enc = new G711Encoder('ulaw');
    const out = [enc.write(pcm.subarray(0, 3)), enc.write(pcm.subarray(3, 5)), enc.write(pcm.subarray(5))].flatMap((b) => [...b]);
    expect(out).toEqual([0xff, 0xce, 0x4e, 0x80]);
  });

  it('compands every 16-bit value as the per-sample functions do, from unaligned chunks', () => {
    const pcm = new Uint8Array(65536 * 2 + 1).subarray(1);
    const view = new DataView(pcm.buffer, pcm.byteOffset);
    for (let v = -32768; v < 32768; v++) view.setInt16((v + 32768) * 2, v, true);
    for (const law of ['ulaw', 'alaw'] as const) {
      const out = new G711Encoder(law).write(pcm);
      const one = law === 'ulaw' ? linearToUlaw : linearToAlaw;
      for (let v = -32768; v < 32768; v += 97) expect(out[v + 32768]).toBe(one(v));
    }
  });
});

describe('WAV', () => {
  it('writes a 44-byte PCM WAV header, the same bytes as before the move', () => {
    const h = wavHeader(16000, 320);
    expect(h.length).toBe(44);
    const view = new DataView(h.buffer);
    expect(view.getUint32(4, true)).toBe(356);
    expect(view.getUint32(24, true)).toBe(16000);
    expect(view.getUint32(40, true)).toBe(320);
    const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    expect(hex(h)).toBe('524946466401000057415645666d74201000000001000100803e0000007d0000020010006461746140010000');
    expect(hex(wavHeader(24000, 0xffffffff - 36))).toBe(
      '52494646ffffffff57415645666d74201000000001000100c05d000080bb00000200100064617461dbffffff',
    );
  });

  it('marks a stream of unknown length with the largest sizes, as each caller asked for them', () => {
    const streamed = new DataView(wavHeader(24000, 0xffffffff).buffer);
    expect([streamed.getUint32(4, true), streamed.getUint32(40, true)]).toEqual([0xffffffff, 0xffffffff]);
    // The ElevenLabs routes ask for 0xFFFFFFFF - 36 bytes: the RIFF size is then the largest, the data size 36 less.
    const eleven = new DataView(wavHeader(24000, 0xffffffff - 36).buffer);
    expect([eleven.getUint32(4, true), eleven.getUint32(40, true)]).toEqual([0xffffffff, 0xffffffff - 36]);
  });

  it('encodes float samples and reads them back', () => {
    const x = Float32Array.from({ length: 480 }, (_, i) => 0.8 * Math.sin(i / 7));
    const wav = encodeWav(x, 24000);
    expect(wav.length).toBe(44 + 960);
    const back = decodeWav(wav);
    expect(back.sampleRate).toBe(24000);
    expect(back.samples.length).toBe(480);
    for (let i = 0; i < 480; i++) expect(Math.abs(back.samples[i]! - x[i]!)).toBeLessThan(1 / 16000);
    expect(pcmToWav(floatToInt16(x), 24000)).toEqual(wav);
    expect(parseWavHeader(wav)).toMatchObject({ sampleRate: 24000, channels: 1, bitsPerSample: 16, dataOffset: 44 });
    expect(() => decodeWav(new Uint8Array([1, 2, 3]))).toThrow('not a WAV file');
  });

  it('gives a collected stream its real sizes, leaving its input alone', () => {
    const streamed = pcmToWav(new Uint8Array(100), 24000);
    const view = new DataView(streamed.buffer);
    view.setUint32(4, 0xffffffff, true);
    view.setUint32(40, 0xffffffff, true);
    const fixed = new DataView(fixWavSizes(streamed).buffer);
    expect(fixed.getUint32(4, true)).toBe(136);
    expect(fixed.getUint32(40, true)).toBe(100);
    expect(view.getUint32(40, true)).toBe(0xffffffff);
  });
});

describe('16-bit PCM', () => {
  it('rounds, clips and reads back through unaligned views', () => {
    const bytes = floatToInt16(Float32Array.from([0, 1, -1, 2, -2, 0.5, -0.5]));
    const view = new DataView(bytes.buffer);
    expect(Array.from({ length: 7 }, (_, i) => view.getInt16(i * 2, true))).toEqual([
      0, 32767, -32768, 32767, -32768, 16384, -16384,
    ]);
    const unaligned = new Uint8Array(bytes.length + 1);
    unaligned.set(bytes, 1);
    expect(int16ToFloat(unaligned.subarray(1))).toEqual(int16ToFloat(bytes));
  });
});

// The resampling tests of the server's `pcm_<rate>` formats, now on the shared resampler.
function sine(rate: number, hz: number, seconds: number, amplitude = 0.5): Uint8Array {
  const n = Math.round(rate * seconds);
  const out = new Uint8Array(n * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < n; i++) view.setInt16(i * 2, Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / rate)), true);
  return out;
}

const samples = (bytes: Uint8Array) => Array.from(int16ToFloat(bytes));
const rms = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + x * x, 0) / xs.length);
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** The power of one frequency in a signal (a single DFT bin), as an amplitude. */
function toneAmplitude(xs: number[], rate: number, hz: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < xs.length; i++) {
    re += xs[i]! * Math.cos((2 * Math.PI * hz * i) / rate);
    im -= xs[i]! * Math.sin((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / xs.length;
}

/** Feeds the input in uneven chunks (odd byte counts included), as a stream arrives. */
function resampleBytes(input: Uint8Array, from: number, to: number): Uint8Array {
  const r = new Pcm16Resampler(from, to);
  const parts: Uint8Array[] = [];
  for (let at = 0, step = 1; at < input.length; at += step, step = (step * 7 + 3) % 4001 || 1) {
    parts.push(r.write(input.subarray(at, at + step)));
  }
  parts.push(r.end());
  return concat(parts);
}

describe('Pcm16Resampler', () => {
  for (const to of [8000, 16000, 22050, 44100, 48000]) {
    it(`keeps a 1 kHz tone, its length and its level from 24 kHz to ${to} Hz`, () => {
      const out = resampleBytes(sine(24000, 1000, 1), 24000, to);
      expect(Math.abs(out.length / 2 - to)).toBeLessThanOrEqual(2);
      const xs = samples(out).slice(100, -100);
      expect(toneAmplitude(xs, to, 1000)).toBeGreaterThan(0.48);
      expect(rms(xs)).toBeCloseTo(0.5 / Math.SQRT2, 1);
    });
  }

  it('removes what the lower rate cannot carry instead of folding it back', () => {
    // 7 kHz exists at 24 kHz but not at 8 kHz (Nyquist 4 kHz); without the filter it would alias to 1 kHz.
    const xs = samples(resampleBytes(sine(24000, 7000, 1), 24000, 8000)).slice(100, -100);
    expect(rms(xs)).toBeLessThan(0.01);
  });

  it('gives the same samples however the input is cut, and those of the whole-signal resampler', () => {
    const input = sine(24000, 440, 0.5);
    const whole = new Pcm16Resampler(24000, 16000);
    const once = concat([whole.write(input), whole.end()]);
    expect(resampleBytes(input, 24000, 16000)).toEqual(once);
    expect(once).toEqual(floatToInt16(resamplePolyphase(int16ToFloat(input), 24000, 16000)));
  });

  it('passes the bytes through when the rates are equal', () => {
    const input = sine(24000, 440, 0.1);
    expect(resampleBytes(input, 24000, 24000)).toEqual(input);
  });

  it('keeps only the tail of a long stream, with the same output', () => {
    const x = Float32Array.from({ length: 400_000 }, (_, i) => Math.sin(i / 11) * 0.5);
    const s = new PolyphaseStream(24000, 22050);
    const parts: Float32Array[] = [];
    for (let at = 0; at < x.length; at += 4096) parts.push(s.push(x.subarray(at, at + 4096)));
    parts.push(s.end());
    const streamed = concatFloat32(parts);
    expect(streamed).toEqual(resamplePolyphase(x, 24000, 22050));
    expect((s as unknown as { buf: Float32Array }).buf.length).toBeLessThan(300_000);
  });
});

describe('MP3 frame headers', () => {
  /** The head of what the platform streams: an ID3v2 tag, then MPEG-2 Layer III frames at 64 kbps, 24 kHz. */
  const head = () =>
    new Uint8Array([0x49, 0x44, 0x33, 0x04, 0, 0, 0, 0, 0, 0x23, ...new Array(0x23).fill(0), 0xff, 0xf3, 0x84, 0xc4, 0, 0, 0]);

  it('skips the ID3 tag and reads the first frame and its length', () => {
    expect(id3Size(head())).toBe(45);
    expect(firstMp3Frame(head())).toEqual({ offset: 45, bitrateKbps: 64, sampleRate: 24000 });
    expect(parseMp3Header(head(), 45)).toMatchObject({
      mpeg1: false,
      mono: true,
      bitrate: 64000,
      sampleRate: 24000,
      length: 192,
    });
    expect(mp3Seconds(head(), 45 + 8000 * 3)).toBeCloseTo(3, 5);
    expect(mp3Seconds(new Uint8Array([1, 2, 3]), 100)).toBeNull();
    expect(firstMp3Frame(new Uint8Array([0xff, 0xfb, 0x90, 0x64]))).toEqual({ offset: 0, bitrateKbps: 128, sampleRate: 44100 });
  });
});
