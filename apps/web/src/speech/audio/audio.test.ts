import { describe, expect, it } from 'vitest';
import { browserMseCheck, mseTypeFor } from './formats';
import { computePeaks, estimateSeconds } from './peaks';
import { downloadable, playable } from './playable';
import { firstMp3Frame, fixWavSizes, id3Size, mp3Seconds, parseWavHeader, pcmToWav } from '@polyvox/speech/formats';

/** The head of what the platform streams: an ID3v2 tag, then MPEG-2 Layer III frames at 64 kbps, 24 kHz. */
function platformMp3Head(): Uint8Array {
  const id3 = [0x49, 0x44, 0x33, 0x04, 0, 0, 0, 0, 0, 0x23];
  return new Uint8Array([...id3, ...new Array(0x23).fill(0), 0xff, 0xf3, 0x84, 0xc4, 0, 0, 0]);
}

describe('MP3 headers', () => {
  it('skips the ID3 tag and reads the first frame', () => {
    const head = platformMp3Head();
    expect(id3Size(head)).toBe(45);
    expect(firstMp3Frame(head)).toEqual({ offset: 45, bitrateKbps: 64, sampleRate: 24000 });
  });

  it('turns a byte count into seconds at the frame bitrate', () => {
    expect(mp3Seconds(platformMp3Head(), 45 + 8000 * 3)).toBeCloseTo(3, 5);
    expect(mp3Seconds(new Uint8Array([1, 2, 3]), 100)).toBeNull();
  });

  it('reads MPEG-1 frames too (128 kbps, 44.1 kHz)', () => {
    expect(firstMp3Frame(new Uint8Array([0xff, 0xfb, 0x90, 0x64]))).toEqual({ offset: 0, bitrateKbps: 128, sampleRate: 44100 });
  });
});

describe('WAV', () => {
  it('wraps PCM in a header that parses back', () => {
    const wav = pcmToWav(new Uint8Array(4800), 24000);
    expect(wav.length).toBe(4844);
    expect(parseWavHeader(wav)).toEqual({
      sampleRate: 24000,
      channels: 1,
      bitsPerSample: 16,
      byteRate: 48000,
      dataOffset: 44,
      dataSizeOffset: 40,
    });
  });

  it('gives a streamed WAV (sizes 0xFFFFFFFF) its real sizes', () => {
    const streamed = pcmToWav(new Uint8Array(100), 24000);
    const view = new DataView(streamed.buffer);
    view.setUint32(4, 0xffffffff, true);
    view.setUint32(40, 0xffffffff, true);
    const fixed = new DataView(fixWavSizes(streamed).buffer);
    expect(fixed.getUint32(4, true)).toBe(136);
    expect(fixed.getUint32(40, true)).toBe(100);
    expect(view.getUint32(40, true)).toBe(0xffffffff); // the input is left alone
  });

  it('leaves bytes that are not WAV unchanged', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(fixWavSizes(bytes)).toBe(bytes);
    expect(parseWavHeader(bytes)).toBeNull();
  });
});

describe('seconds received', () => {
  it('is exact for WAV and PCM, close for MP3, unknown for Opus', () => {
    const wavHead = pcmToWav(new Uint8Array(0), 24000);
    expect(estimateSeconds('wav', wavHead, 44 + 48000 * 2)).toBeCloseTo(2, 5);
    expect(estimateSeconds('pcm', new Uint8Array(0), 48000)).toBeCloseTo(1, 5);
    expect(estimateSeconds('mp3', platformMp3Head(), 45 + 8000)).toBeCloseTo(1, 5);
    expect(estimateSeconds('opus', new Uint8Array(10), 5000)).toBeNull();
    expect(estimateSeconds('mp3', new Uint8Array(0), 0)).toBe(0);
  });
});

describe('peaks', () => {
  it('keeps the loudest absolute sample of each bucket, across channels', () => {
    const left = new Float32Array([0.1, -0.5, 0.2, 0.3, 0, 0]);
    const right = new Float32Array([0, 0, 0, -0.9, 0.05, 0]);
    const peaks = Array.from(computePeaks([left, right], 3));
    expect(peaks).toHaveLength(3);
    [0.5, 0.9, 0.05].forEach((want, i) => expect(peaks[i]).toBeCloseTo(want, 6));
  });

  it('never makes more points than samples, and clamps to 1', () => {
    expect(computePeaks([new Float32Array([2, -3])], 10)).toEqual(new Float32Array([1, 1]));
    expect(computePeaks([], 10).length).toBe(0);
  });
});

describe('streaming playback support', () => {
  it('streams MP3 through MSE where the browser takes audio/mpeg, and nothing else', () => {
    const all = () => true;
    expect(mseTypeFor('mp3', all)).toBe('audio/mpeg');
    expect(mseTypeFor('mp3', () => false)).toBeNull();
    expect(mseTypeFor('mp3', null)).toBeNull();
    expect(mseTypeFor('wav', all)).toBeNull();
    expect(mseTypeFor('opus', all)).toBeNull();
    expect(
      mseTypeFor('mp3', () => {
        throw new Error('boom');
      }),
    ).toBeNull();
  });

  it('finds no MediaSource in Node', () => {
    expect(browserMseCheck()).toBeNull();
  });
});

describe('playable and downloadable bytes', () => {
  const streamedWav = () => {
    const wav = pcmToWav(new Uint8Array(10), 24000);
    new DataView(wav.buffer).setUint32(40, 0xffffffff, true);
    return wav;
  };

  it('plays PCM as a 24 kHz WAV and a streamed WAV with its real sizes', () => {
    const pcm = playable('pcm', new Uint8Array(480));
    expect(pcm.type).toBe('audio/wav');
    expect(parseWavHeader(pcm.bytes)).toMatchObject({ sampleRate: 24000, dataOffset: 44 });
    expect(new DataView(playable('wav', streamedWav()).bytes.buffer).getUint32(40, true)).toBe(10);
    const mp3 = new Uint8Array([1, 2]);
    expect(playable('mp3', mp3)).toEqual({ bytes: mp3, type: 'audio/mpeg' });
    expect(playable('opus', mp3).type).toBe('audio/ogg');
  });

  it('downloads PCM raw, and WAV fixed', async () => {
    const raw = downloadable('pcm', new Uint8Array([1, 2, 3, 4]));
    expect(raw.type).toBe('audio/pcm');
    expect(raw.size).toBe(4);
    const wav = new Uint8Array(await downloadable('wav', streamedWav()).arrayBuffer());
    expect(new DataView(wav.buffer).getUint32(40, true)).toBe(10);
  });
});
