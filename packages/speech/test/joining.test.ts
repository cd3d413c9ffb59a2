import { describe, expect, it, onTestFinished } from 'vitest';
import { matchLoudness, pcmLoudness, SPEECH_LUFS } from '../src/index.ts';
import { EncoderHost } from '../src/audio/encoder-host.ts';
import { pcmEncoderOf } from '../src/audio/pcm-encoder.ts';

const RATE = 24000;

/** 16-bit PCM: `lead` s of silence, `tone` s of a 220 Hz tone with a slow tremolo at `dbfs` peak, `tail` s of silence. */
function piece(dbfs: number, lead: number, tone: number, tail: number): Buffer {
  const n = Math.round((lead + tone + tail) * RATE);
  const pcm = Buffer.alloc(n * 2);
  const amp = 32767 * Math.pow(10, dbfs / 20);
  for (let i = Math.round(lead * RATE); i < Math.round((lead + tone) * RATE); i++) {
    const t = i / RATE;
    pcm.writeInt16LE(Math.round(amp * Math.sin(2 * Math.PI * 220 * t) * (0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t))), i * 2);
  }
  return pcm;
}

describe('joining speech made apart', () => {
  it('brings pieces 20 dB apart to the same BS.1770 loudness, within 0.5 LU of the target', () => {
    const loud = piece(-3, 0.2, 2, 0.2);
    const quiet = piece(-23, 0.2, 2, 0.2);
    expect(pcmLoudness(loud, RATE) - pcmLoudness(quiet, RATE)).toBeGreaterThan(19);
    const a = matchLoudness(loud, RATE);
    const b = matchLoudness(quiet, RATE);
    for (const m of [a, b]) {
      expect(Math.abs(m.after - SPEECH_LUFS)).toBeLessThan(0.5);
      expect(Math.abs(pcmLoudness(m.pcm, RATE) - SPEECH_LUFS)).toBeLessThan(0.5);
    }
    expect(a.before - b.before).toBeGreaterThan(19);
  });

  it('trims the silent edges, keeping the pad asked for, and says how much it moved the start', () => {
    const m = matchLoudness(piece(-10, 0.5, 1, 0.4), RATE, SPEECH_LUFS, 0.03);
    expect(m.trimmedSec).toBeCloseTo(0.47, 2);
    expect(m.quiet.start).toBeCloseTo(0.03, 2);
    expect(m.quiet.end).toBeLessThanOrEqual(0.031);
    expect(m.pcm.length / 2 / RATE).toBeCloseTo(1.06, 1);
    // Silence stays silence.
    const silent = matchLoudness(Buffer.alloc(RATE * 2), RATE);
    expect(silent.before).toBe(-Infinity);
  });

  it('encodes 16-bit PCM as mp3 and Ogg Opus on the encoder thread, piece by piece or as one checked file', async () => {
    const host = new EncoderHost();
    onTestFinished(() => host.close());
    for (const [format, magic] of [
      ['mp3', (b: Buffer) => b[0] === 0xff && (b[1]! & 0xe0) === 0xe0],
      ['opus', (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'OggS'],
    ] as const) {
      for (const whole of [false, true]) {
        const encoder = pcmEncoderOf(host.stream(format, RATE, whole));
        const parts = [await encoder.write(piece(-10, 0, 1, 0)), await encoder.write(piece(-10, 0.1, 1, 0))];
        // A whole file comes at the end alone; a stream's bytes as they are made.
        if (whole) expect(parts.every((p) => p.length === 0)).toBe(true);
        parts.push(await encoder.end());
        const file = Buffer.concat(parts);
        expect(magic(file), `${format} whole=${whole}`).toBe(true);
        expect(file.length).toBeGreaterThan(4000);
      }
    }
  });
});
