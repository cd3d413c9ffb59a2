/**
 * The sound of a file without its metadata (what a label is bound to): the same bytes before and after labelling
 * and under other tags, whole or read chunk by chunk at any split, and other bytes for other sound.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EncoderHost } from '../src/audio/encoder-host.ts';
import { encodeAudio } from '../src/audio/encoders.ts';
import { withAigc, wavWithInfo, type AigcRecord } from '../src/formats/aigc.ts';
import { AudioPayload, audioPayload } from '../src/formats/payload.ts';
import { encodeWav } from '../src/formats/wav.ts';
import { buzz } from './support/audio.ts';

const host = new EncoderHost();
afterAll(() => host.close());

const record: AigcRecord = {
  Label: '1',
  ContentProducer: 'Polyvox',
  ProduceID: 'aigc_0123456789abcdef',
  ReservedCode1: 'c0ffee',
  ContentPropagator: '',
  PropagateID: '',
  ReservedCode2: '',
};

const joined = (parts: Uint8Array[]) => Buffer.concat(parts);

/** The payload read in chunks of `size` bytes. */
function chunked(bytes: Uint8Array, container: 'mp3' | 'wav' | 'opus', size: number): Buffer {
  const reader = new AudioPayload(container);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) parts.push(...reader.push(bytes.slice(at, at + size)));
  parts.push(...reader.end());
  return joined(parts);
}

describe.each(['mp3', 'opus', 'wav'] as const)('%s', (format) => {
  const rate = 24000;
  const encode = async (hz: number) => {
    const input = buzz(hz, 0.6, rate);
    return format === 'wav' ? encodeWav(input, rate) : new Uint8Array(await encodeAudio(input, rate, format));
  };

  it('is the same sound before and after labelling, whole or in chunks, and differs for other sound', async () => {
    const plain = await encode(160);
    const payload = joined(audioPayload(plain, format));
    // Nearly the whole file: only headers and tags are left out.
    expect(payload.length).toBeGreaterThan(plain.length * 0.8);
    const labelled = withAigc(plain, format, record);
    expect(joined(audioPayload(labelled, format)).equals(payload)).toBe(true);
    for (const size of [1, 7, 100, 4096]) expect(chunked(labelled, format, size).equals(payload), `chunks of ${size}`).toBe(true);
    const other = withAigc(await encode(220), format, record);
    expect(joined(audioPayload(other, format)).equals(payload)).toBe(false);
  });

  it('reads a stream as its file: the same sound whatever the chunks the encoder gave', async () => {
    const stream = host.stream(format, rate);
    const chunks: Uint8Array[] = [];
    chunks.push(...(await stream.write(buzz(160, 0.6, rate))));
    chunks.push(...(await stream.end()));
    const reader = new AudioPayload(format);
    const parts: Uint8Array[] = [];
    for (const c of chunks) parts.push(...reader.push(c));
    parts.push(...reader.end());
    expect(joined(parts).equals(joined(audioPayload(Buffer.concat(chunks), format)))).toBe(true);
    expect(joined(parts).length).toBeGreaterThan(0);
  });
});

describe('what is not sound', () => {
  it('mp3: every ID3v2 tag in front and an ID3v1 tag at the end are left out', () => {
    const frames = Buffer.from([0xff, 0xfb, 0x90, 0x64, ...Array.from({ length: 400 }, (_, i) => i & 0xff)]);
    const v1 = Buffer.concat([Buffer.from('TAG'), Buffer.alloc(125, 0x20)]);
    const tagged = Buffer.concat([withAigc(withAigc(frames, 'mp3', record), 'mp3', record), frames.subarray(0, 0), v1]);
    expect(joined(audioPayload(tagged, 'mp3')).equals(frames)).toBe(true);
    expect(chunked(tagged, 'mp3', 3).equals(frames)).toBe(true);
  });

  it('wav: chunks before and after `data` are left out; a stream`s data runs to the end', () => {
    const wav = encodeWav(buzz(100, 0.1, 8000), 8000);
    const data = Buffer.from(wav.subarray(44));
    const after = Buffer.concat([wavWithInfo(wav, [['AIGC', '{}']]), Buffer.from('C2PA'), Buffer.from([3, 0, 0, 0, 1, 2, 3, 0])]);
    expect(joined(audioPayload(after, 'wav')).equals(data)).toBe(true);
    expect(chunked(after, 'wav', 5).equals(data)).toBe(true);
    const streamed = Buffer.from(wav);
    streamed.writeUInt32LE(0xffffffff, 40);
    expect(joined(audioPayload(streamed, 'wav')).equals(data)).toBe(true);
  });

  it('finds no sound in what is not the container, without throwing', () => {
    for (const container of ['mp3', 'wav', 'opus'] as const)
      for (const bytes of [new Uint8Array(0), Buffer.from('RIFF....WAVE'), Buffer.from('OggS')])
        expect(() => audioPayload(bytes, container)).not.toThrow();
    expect(audioPayload(Buffer.from('not a wav file at all'), 'wav')).toEqual([]);
  });
});
