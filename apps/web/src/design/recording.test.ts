import { describe, expect, it } from 'vitest';
import { encodeWav, parseWavHeader } from '@polyvox/speech/formats';
import { checkRecording, clock, levelOf, toMono } from './recording';

describe('a recording made in the page', () => {
  it('is held to the same 10 s to 5 min as an upload', () => {
    expect(checkRecording(9.9)).toBe('short');
    expect(checkRecording(Number.NaN)).toBe('short');
    expect(checkRecording(10)).toBeNull();
    expect(checkRecording(300)).toBeNull();
    expect(checkRecording(300.1)).toBe('long');
  });

  it('becomes a 16-bit mono WAV the server recognises from its bytes', () => {
    const rate = 48_000;
    const samples = new Float32Array(rate).map((_, i) => Math.sin((2 * Math.PI * 220 * i) / rate) * 1.5);
    const wav = encodeWav(samples, rate);
    expect(wav.length).toBe(44 + rate * 2);
    expect(parseWavHeader(wav)).toMatchObject({ sampleRate: rate, channels: 1, bitsPerSample: 16, dataOffset: 44 });
    const view = new DataView(wav.buffer);
    // Clipped, not wrapped.
    const values = Array.from({ length: rate }, (_, i) => view.getInt16(44 + i * 2, true));
    expect(Math.max(...values)).toBe(0x7fff);
    expect(Math.min(...values)).toBe(-0x8000);
  });

  it('mixes channels down, meters the level and counts the time', () => {
    expect(Array.from(toMono([new Float32Array([1, 0.5]), new Float32Array([0, 0.5])]))).toEqual([0.5, 0.5]);
    expect(levelOf(new Float32Array(128))).toBe(0);
    expect(levelOf(new Float32Array(128).fill(1))).toBe(100);
    expect(levelOf(new Float32Array(128).fill(0.01))).toBeGreaterThan(0);
    expect(clock(65.4)).toBe('1:05');
    expect(clock(300)).toBe('5:00');
  });
});
