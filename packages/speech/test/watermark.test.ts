import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeWav } from '../src/formats/index.ts';
import { WatermarkEmbedder, detectWatermark, embedWatermark, WATERMARK_THRESHOLD } from '../src/watermark/index.ts';
import { decodePayload, encodePayload, CODED_BITS } from '../src/watermark/code.ts';
import { nullModel, normalTail } from '../src/watermark/calibration.ts';
import { coarseScores } from '../src/watermark/detect.ts';
import { fixture, ljSamples } from './support/fixtures.ts';

const KEY = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 255);
const OTHER = new Uint8Array(32).map((_, i) => (i * 53 + 5) & 255);

function wav(path: string): { samples: Float32Array; sampleRate: number } {
  const b = readFileSync(path);
  return decodeWav(new Uint8Array(b.buffer, b.byteOffset, b.length));
}

/** The LJ recordings joined: about 50 s of one human voice at 22,050 Hz, as a host for the mark. */
function lj(rate: number, seconds: number): Float32Array {
  return ljSamples(rate, seconds);
}

function energyDb(x: Float32Array, y: Float32Array): number {
  let ex = 0,
    ed = 0;
  for (let i = 0; i < x.length; i++) {
    ex += x[i]! * x[i]!;
    ed += (y[i]! - x[i]!) ** 2;
  }
  return 10 * Math.log10(ex / ed);
}

describe('the watermark', () => {
  it.each([8000, 16000, 22050, 24000, 44100, 48000])('is found again at %i Hz, 30 dB or more under the speech', (rate) => {
    const x = lj(rate, 6);
    const y = embedWatermark(x, rate, { key: KEY, payload: 0x1234abcd });
    expect(y.length).toBe(x.length);
    expect(energyDb(x, y)).toBeGreaterThanOrEqual(30);
    const r = detectWatermark(y, rate, KEY);
    expect(r.detected).toBe(true);
    expect(r.score).toBeGreaterThan(WATERMARK_THRESHOLD);
    expect(r.falseAlarmRate).toBeLessThan(1e-6);
    expect(detectWatermark(x, rate, KEY).detected).toBe(false);
  });

  it('streams: any chunking gives the whole-buffer output, sample for sample', () => {
    for (const rate of [16000, 22050, 44100, 48000]) {
      const x = lj(rate, 3);
      const whole = embedWatermark(x, rate, { key: KEY, payload: 7 });
      for (const sizes of [[1], [127, 4096], [rate, 3], [x.length]]) {
        const e = new WatermarkEmbedder({ key: KEY, payload: 7, sampleRate: rate });
        const parts: Float32Array[] = [];
        for (let o = 0, i = 0; o < x.length; i++) {
          const n = Math.min(sizes[i % sizes.length]!, x.length - o);
          parts.push(e.push(x.subarray(o, o + n)));
          o += n;
        }
        parts.push(e.end());
        const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
        let o = 0;
        for (const p of parts) {
          out.set(p, o);
          o += p.length;
        }
        expect(out.length).toBe(x.length);
        expect(out).toEqual(whole);
      }
    }
  });

  it('holds back at most about a slot while streaming', () => {
    const rate = 24000;
    const x = lj(rate, 4);
    const e = new WatermarkEmbedder({ key: KEY, payload: 7, sampleRate: rate });
    let given = 0,
      out = 0;
    for (let o = 0; o < x.length; o += 2400) {
      out += e.push(x.subarray(o, o + 2400)).length;
      given = Math.min(x.length, o + 2400);
      expect(given - out).toBeLessThan(0.2 * rate);
    }
    expect(out + e.end().length).toBe(x.length);
  });

  it('leaves digital silence silent', () => {
    const x = new Float32Array(24000 * 3);
    x.set(lj(24000, 1), 24000);
    const y = embedWatermark(x, 24000, { key: KEY, payload: 1 });
    for (const i of [0, 1000, 20000, 2 * 24000 + 8000, x.length - 1]) expect(y[i]).toBe(0);
  });

  it('carries a 32-bit payload that a 15 s clip gives back, and only with its key', () => {
    const x = lj(16000, 15);
    for (const payload of [0, 0xffffffff, 0xdeadbeef]) {
      const y = embedWatermark(x, 16000, { key: KEY, payload });
      expect(detectWatermark(y, 16000, KEY, { payload: true }).payload).toBe(payload);
    }
    const y = embedWatermark(x, 16000, { key: KEY, payload: 42 });
    const wrong = detectWatermark(y, 16000, OTHER, { payload: true });
    expect(wrong.detected).toBe(false);
    expect(wrong.payload).toBeNull();
  });

  it('refuses keys, payloads and rates it cannot use', () => {
    expect(() => new WatermarkEmbedder({ key: new Uint8Array(4), payload: 1, sampleRate: 16000 })).toThrow(RangeError);
    expect(() => new WatermarkEmbedder({ key: KEY, payload: -1, sampleRate: 16000 })).toThrow(RangeError);
    expect(() => new WatermarkEmbedder({ key: KEY, payload: 2 ** 32, sampleRate: 16000 })).toThrow(RangeError);
    expect(() => new WatermarkEmbedder({ key: KEY, payload: 1, sampleRate: 96000 })).toThrow(RangeError);
  });

  it('finds nothing in unmarked audio: a human recording, silence, noise', () => {
    const jfk = wav(fixture('jfk.wav'));
    for (const key of [KEY, OTHER]) {
      const r = detectWatermark(jfk.samples, jfk.sampleRate, key);
      expect(r.detected).toBe(false);
      expect(r.falseAlarmRate).toBeGreaterThan(1e-3);
    }
    expect(detectWatermark(new Float32Array(16000 * 5), 16000, KEY).detected).toBe(false);
    let s = 1;
    const noise = Float32Array.from({ length: 16000 * 5 }, () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 0.2);
    expect(detectWatermark(noise, 16000, KEY).detected).toBe(false);
    expect(detectWatermark(new Float32Array(10), 16000, KEY).detected).toBe(false);
  });

  it("does not take the first release's mark (v1) for this one: such files are recognised by their metadata only", () => {
    // 16 s of LJ at 22,050 Hz marked by the first release's embedder (payload 0xc0ffee42 under KEY),
    // resampled to 8 kHz and saved as 16-bit WAV. Since v2 the mark has another grid and pattern.
    const old = wav(fixture('LJ-watermarked-v1.wav'));
    expect(old.sampleRate).toBe(8000);
    const r = detectWatermark(old.samples, old.sampleRate, KEY, { payload: true });
    expect(r.detected).toBe(false);
    expect(r.payload).toBeNull();
    expect(r.falseAlarmRate).toBeGreaterThan(1e-3);
    // The same speech marked now is found, with its payload.
    const host = lj(8000, 16);
    const y = embedWatermark(host, 8000, { key: KEY, payload: 0xc0ffee42 });
    const now = detectWatermark(y, 8000, KEY, { payload: true });
    expect(now.score).toBeGreaterThan(WATERMARK_THRESHOLD + 5);
    expect(now.payload).toBe(0xc0ffee42);
  });

  it("still finds the second release's mark (v2), payload and all: v3 only gives more of the same pattern's units to sync", () => {
    // The same 16 s of LJ at 22,050 Hz marked by v2's embedder (payload 0xc0ffee42 under KEY), then
    // resampled to 8 kHz and saved as 16-bit WAV.
    const old = wav(fixture('LJ-watermarked-v2.wav'));
    expect(old.sampleRate).toBe(8000);
    const r = detectWatermark(old.samples, old.sampleRate, KEY, { payload: true });
    expect(r.detected).toBe(true);
    expect(r.payload).toBe(0xc0ffee42);
    // Under another key it is unmarked audio like any other.
    const other = detectWatermark(old.samples, old.sampleRate, OTHER, { payload: true });
    expect(other.detected).toBe(false);
    expect(other.payload).toBeNull();
  });

  it("scores the coarse search's offsets from its per-slot table as the direct sum does", () => {
    const x = lj(16000, 6);
    const y = embedWatermark(x, 16000, { key: KEY, payload: 5 });
    let s = 3;
    const noise = Float32Array.from({ length: 16000 * 5 }, () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5) * 0.2);
    const speeds = [
      { time: 1, freq: 1 },
      { time: 1 / 1.03, freq: 1 },
      { time: 1 / 0.96, freq: 0.96 },
    ];
    let best = 0;
    for (const audio of [x, y, noise])
      for (const h of speeds)
        for (const phase of [0, 64, 448]) {
          const { table, direct } = coarseScores(audio, 16000, KEY, h, phase);
          let worst = 0;
          for (let o = 0; o < table.length; o++) worst = Math.max(worst, Math.abs(table[o]! - direct[o]!));
          // The same grid, the phase read without Math.log: within a thousandth or so. A changed tempo
          // reads the slots starting at the nearest whole frames instead of the laid ones: a
          // neighbouring alignment, not the same sum (up to about 1.4 apart here on speech).
          expect(worst).toBeLessThan(h.time === 1 || h.freq !== 1 ? 0.005 : 2);
          best = Math.max(best, ...table);
        }
    // The marked clip at its own alignment scores far above the threshold in the coarse pass alone.
    expect(best).toBeGreaterThan(WATERMARK_THRESHOLD);
  });

  it('is not found with another key', () => {
    const x = lj(24000, 6);
    const y = embedWatermark(x, 24000, { key: KEY, payload: 3 });
    expect(detectWatermark(y, 24000, OTHER).detected).toBe(false);
  });
});

describe('the payload code', () => {
  it('corrects errors and refuses what it cannot correct', () => {
    const coded = encodePayload(0xcafef00d);
    expect(coded.length).toBe(CODED_BITS);
    const soft = Float64Array.from(coded, (b) => (b ? -1 : 1));
    // A few flipped bits and a run of erasures are corrected.
    for (const i of [3, 40, 77]) soft[i] = -soft[i]!;
    for (let i = 50; i < 60; i++) soft[i] = 0;
    expect(decodePayload(soft)).toBe(0xcafef00d);
    // Garbage fails the CRC rather than giving a wrong payload (a few seeds).
    let s = 9,
      found = 0;
    for (let t = 0; t < 200; t++) {
      const junk = Float64Array.from({ length: CODED_BITS }, () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5);
      if (decodePayload(junk) !== null) found++;
    }
    expect(found).toBe(0);
  });
});

describe('the null model', () => {
  it('fits the effective number of hypotheses and gives the tail it implies', () => {
    expect(normalTail(0)).toBeCloseTo(0.5, 6);
    expect(normalTail(4.753424)).toBeCloseTo(1e-6, 8);
    // Maxima of 1000 independent normals, drawn by inverting the CDF at evenly spaced quantiles.
    const m = 1000;
    const maxima = Array.from({ length: 400 }, (_, i) => {
      const u = (i + 0.5) / 400;
      // P(max ≤ z) = Φ(z)^m = u ⇒ tail(z) = 1 − u^(1/m)
      const tail = 1 - u ** (1 / m);
      let lo = -10,
        hi = 40;
      for (let k = 0; k < 80; k++) {
        const mid = (lo + hi) / 2;
        if (normalTail(mid) > tail) lo = mid;
        else hi = mid;
      }
      return lo;
    });
    const fit = nullModel(maxima);
    expect(fit.effective).toBeGreaterThan(800);
    expect(fit.effective).toBeLessThan(1250);
    // Q(t) = 1e-6 / 1000 at t ≈ 6.0.
    expect(fit.thresholdFor1e6).toBeCloseTo(6.0, 0);
  });
});
