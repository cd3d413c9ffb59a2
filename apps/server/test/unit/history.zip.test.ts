import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { zipStream } from '../../src/platform/zip.js';
import { fileNameOf } from '../../src/history/service.js';
import { settingsOf, voiceCategoryOf } from '../../src/history/types.js';

async function zipOf(files: Record<string, Buffer[]>): Promise<Buffer> {
  const parts: Buffer[] = [];
  const entries = Object.entries(files).map(([name, chunks]) => ({
    name,
    date: new Date('2026-03-04T05:06:08Z'),
    open: () =>
      Promise.resolve(
        (async function* () {
          yield* chunks;
        })(),
      ),
  }));
  for await (const part of zipStream(entries)) parts.push(part);
  return Buffer.concat(parts);
}

describe('a zip made while it is sent (platform/zip.ts)', () => {
  it('holds each file, read in chunks, byte for byte, under its UTF-8 name', async () => {
    const big = Buffer.alloc(300_000, 7);
    big[12_345] = 1;
    const zip = await JSZip.loadAsync(
      await zipOf({
        'a.mp3': [Buffer.from('ID3'), Buffer.from('abc')],
        '语音.wav': [big.subarray(0, 100), big.subarray(100)],
        'empty.pcm': [],
      }),
    );
    expect(Object.keys(zip.files)).toEqual(['a.mp3', '语音.wav', 'empty.pcm']);
    expect((await zip.file('a.mp3')!.async('nodebuffer')).toString()).toBe('ID3abc');
    expect((await zip.file('语音.wav')!.async('nodebuffer')).equals(big)).toBe(true);
    expect((await zip.file('empty.pcm')!.async('nodebuffer')).length).toBe(0);
    expect(zip.file('a.mp3')!.date.toISOString()).toBe('2026-03-04T05:06:08.000Z');
  });

  it('an empty zip is just its end record', async () => {
    const zip = await zipOf({});
    expect(zip.length).toBe(22);
    expect(Object.keys((await JSZip.loadAsync(zip)).files)).toEqual([]);
  });
});

describe('history items', () => {
  it('name their files by id and format', () => {
    expect(fileNameOf({ id: 'hist_1', output_format: 'mp3_44100_128', content_type: 'audio/mpeg' })).toBe('hist_1.mp3');
    expect(fileNameOf({ id: 'hist_2', output_format: 'pcm_24000', content_type: 'audio/pcm' })).toBe('hist_2.pcm');
    expect(fileNameOf({ id: 'hist_3', output_format: 'wav', content_type: 'audio/wav' })).toBe('hist_3.wav');
    expect(fileNameOf({ id: 'hist_4', output_format: 'weird', content_type: 'audio/x' })).toBe('hist_4.bin');
  });

  it("keep a request's settings by any dialect's names, and ElevenLabs' voice categories", () => {
    expect(settingsOf({ text: 'x', speed: 1.2, voice_settings: { stability: 0.5 }, model_id: 'm', seed: null })).toEqual({
      speed: 1.2,
      voice_settings: { stability: 0.5 },
    });
    expect(settingsOf(undefined)).toEqual({});
    expect(['preset', 'clone', 'prompt', 'mix', null].map((t) => voiceCategoryOf(t))).toEqual([
      'premade',
      'cloned',
      'generated',
      'generated',
      null,
    ]);
  });
});
