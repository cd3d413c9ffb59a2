import { describe, expect, it } from 'vitest';
import { G711Encoder, linearToAlaw, linearToUlaw, wavHeader } from '../../src/synthesis/g711.js';

describe('G.711', () => {
  it('compands the reference points of ITU-T G.711', () => {
    // μ-law: silence is 0xFF, full scale 0x80 / 0x00; A-law: silence 0xD5 / 0x55, full scale 0xAA / 0x2A.
    expect([0, 1000, -1000, 32767, -32768].map(linearToUlaw)).toEqual([0xff, 0xce, 0x4e, 0x80, 0x00]);
    expect([0, -1, 1000, -1000, 32767, -32768].map(linearToAlaw)).toEqual([0xd5, 0x55, 0xfa, 0x7a, 0xaa, 0x2a]);
  });

  it('keeps every sample when a chunk splits one', () => {
    const pcm = Buffer.alloc(8);
    [0, 1000, -1000, 32767].forEach((v, i) => pcm.writeInt16LE(v, i * 2));
    const enc = new G711Encoder('ulaw');
    const out = Buffer.concat([enc.write(pcm.subarray(0, 3)), enc.write(pcm.subarray(3, 5)), enc.write(pcm.subarray(5))]);
    expect([...out]).toEqual([0xff, 0xce, 0x4e, 0x80]);
  });

  it('writes a 44-byte PCM WAV header', () => {
    const h = wavHeader(16000, 320);
    expect(h.length).toBe(44);
    expect(h.readUInt32LE(4)).toBe(356);
    expect(h.readUInt32LE(24)).toBe(16000);
    expect(h.readUInt32LE(40)).toBe(320);
  });
});
