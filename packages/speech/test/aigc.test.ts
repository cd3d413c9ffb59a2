/**
 * The GB 45438-2025 `AIGC` field in each container: written once, read back by our reader and by ffmpeg (an
 * independent reader of ID3v2, RIFF INFO and Vorbis comments), and the file still decodes to the same audio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EncoderHost } from '../src/audio/encoder-host.ts';
import { encodeAudio } from '../src/audio/encoders.ts';
import { decodeAudio, FFMPEG } from '../src/audio/ffmpeg.ts';
import {
  AIGC_KEYS,
  aigcJson,
  opusWithComments,
  parseAigc,
  readAigcValues,
  sniffContainer,
  withAigc,
  type AigcRecord,
} from '../src/formats/aigc.ts';
import { encodeWav } from '../src/formats/wav.ts';
import { buzz } from './support/audio.ts';

const host = new EncoderHost();
afterAll(() => host.close());

const record: AigcRecord = {
  Label: '1',
  ContentProducer: 'Polyvox 测试; a=b',
  ProduceID: 'pv_0123456789abcdef',
  ReservedCode1: 'c0ffee',
  ContentPropagator: '',
  PropagateID: '',
  ReservedCode2: '',
};

/** The tags ffmpeg reads from a file (its ffmetadata output, unescaped), by lower-cased key. */
function ffmpegTags(file: Uint8Array, ext: string): Map<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'polyvox-aigc-'));
  try {
    const input = path.join(dir, `in.${ext}`);
    writeFileSync(input, file);
    // Ogg keeps its comments on the stream, the others on the file: the stream's are copied up for Ogg.
    const map = ext === 'ogg' ? ['-map_metadata', '0:s:0'] : [];
    const res = spawnSync(FFMPEG, ['-v', 'error', '-i', input, ...map, '-f', 'ffmetadata', '-'], { encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    const tags = new Map<string, string>();
    // Lines `key=value`, with `=`, `;`, `#`, `\` and newlines escaped by a backslash.
    for (const line of res.stdout.split(/(?<!\\)\n/)) {
      const m = /^((?:[^=\\]|\\.)+)=(.*)$/s.exec(line);
      if (m) tags.set(m[1]!.replace(/\\(.)/gs, '$1').toLowerCase(), m[2]!.replace(/\\(.)/gs, '$1'));
    }
    return tags;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the AIGC record', () => {
  it('is the seven keys in the standard order, and parses back; anything else is refused', () => {
    const json = aigcJson(record);
    expect(Object.keys(JSON.parse(json) as object)).toEqual([...AIGC_KEYS]);
    expect(parseAigc(json)).toEqual(record);
    expect(parseAigc(JSON.stringify({ AIGC: record }))).toEqual(record);
    expect(parseAigc('{"Label":"1"}')).toBeNull();
    expect(parseAigc('not json')).toBeNull();
    expect(parseAigc(JSON.stringify({ ...record, Label: 1 }))).toBeNull();
  });
});

describe.each([
  ['mp3', 'mp3'],
  ['opus', 'ogg'],
  ['wav', 'wav'],
] as const)('%s', (format, ext) => {
  const rate = 24000;
  const input = buzz(160, 1.2, rate);
  const encode = async () => (format === 'wav' ? encodeWav(input, rate) : new Uint8Array(await encodeAudio(input, rate, format)));

  it('carries exactly one AIGC field, read back by our reader and by ffmpeg, and decodes as before', async () => {
    const plain = await encode();
    expect(readAigcValues(plain)).toEqual([]);
    const labelled = withAigc(plain, format, record);
    expect(sniffContainer(labelled)).toBe(format);
    const values = readAigcValues(labelled);
    expect(values).toHaveLength(1);
    expect(parseAigc(values[0]!)).toEqual(record);
    expect(parseAigc(ffmpegTags(labelled, ext).get('aigc') ?? '')).toEqual(record);
    const before = await decodeAudio(Buffer.from(plain), ext, rate);
    const after = await decodeAudio(Buffer.from(labelled), ext, rate);
    expect(after.samples.length).toBe(before.samples.length);
    let diff = 0;
    for (let i = 0; i < after.samples.length; i++) diff = Math.max(diff, Math.abs(after.samples[i]! - before.samples[i]!));
    expect(diff).toBeLessThan(1e-6);
  });

  it('labels a stream at its start: the first bytes alone carry it, and the joined stream is one valid file', async () => {
    const stream = host.stream(format, rate);
    const chunks: Uint8Array[] = [];
    chunks.push(...(await stream.write(input.slice())));
    chunks.push(...(await stream.end()));
    const bytes = Buffer.concat(chunks);
    // What a stream's first chunk is: the headers (the WAV header, or mp3's first frames, or Ogg's two header pages).
    const headLength = format === 'wav' ? 44 : format === 'mp3' ? 0 : bytes.indexOf('OggS', bytes.indexOf('OggS', 4) + 4);
    const head = withAigc(bytes.subarray(0, headLength), format, record);
    const joined = Buffer.concat([head, bytes.subarray(headLength)]);
    expect(readAigcValues(head).map(parseAigc)).toEqual([record]);
    expect(parseAigc(ffmpegTags(joined, ext).get('aigc') ?? '')).toEqual(record);
    const decoded = await decodeAudio(joined, ext, rate);
    // A stream's mp3 has no Info frame to trim the encoder's delay: up to a frame and a half more.
    expect(Math.abs(decoded.samples.length - input.length)).toBeLessThan(rate * 0.05);
  });
});

describe('hostile and foreign files', () => {
  it('finds nothing in files that are not audio, or truncated, without throwing', () => {
    for (const bytes of [
      new Uint8Array(0),
      new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0x7f, 0x7f, 0x7f, 0x7f]),
      Buffer.from('RIFF....WAVEdata'),
    ])
      expect(readAigcValues(bytes)).toEqual([]);
  });

  it('refuses to label an Ogg file without its header pages', () => {
    expect(() => opusWithComments(Buffer.from('OggS'), ['AIGC={}'])).toThrow();
  });
});
