/** Voice analysis: upload probing from the bytes, and the measures on signals with known answers and on real speech. */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeSample, decodeToPcm, measurePcm, probeSample, sniffFormat } from '../src/analysis/index.ts';
import { LTAS_BANDS, ltas, ltasDistance } from '../src/analysis/ltas.ts';
import { gatePauses } from '../src/analysis/measure.ts';
import { measureInThread } from '../src/analysis/thread.ts';
import { FFMPEG } from '../src/audio/ffmpeg.ts';
import { encodeWav } from '../src/dsp/pcm.ts';
import { isSpeechError } from '../src/core/errors.ts';
import { fixture, joinedLj } from './support/fixtures.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'polyvox-analysis-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, data: Buffer | string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
};

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return isSpeechError(e) ? e.code : `not a SpeechError: ${String(e)}`;
  }
}

/** A pulse train at `f0` through second-order resonators at the given formants (Hz, bandwidth). */
function vowel(f0: number, formants: [number, number][], seconds: number, sampleRate: number): Float32Array {
  const n = Math.round(seconds * sampleRate);
  let x = new Float32Array(n);
  for (let t = 0; t < n; t += sampleRate / f0) x[Math.floor(t)] = 1;
  for (const [f, bw] of formants) {
    const r = Math.exp((-Math.PI * bw) / sampleRate);
    const a1 = -2 * r * Math.cos((2 * Math.PI * f) / sampleRate);
    const a2 = r * r;
    const y = new Float32Array(n);
    for (let i = 0; i < n; i++) y[i] = (1 + a1 + a2) * x[i]! - a1 * (y[i - 1] ?? 0) - a2 * (y[i - 2] ?? 0);
    x = y;
  }
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  return x.map((v) => (0.5 * v) / peak);
}

/** Half a second of silence either side, as a recording has. */
function padded(x: Float32Array, sampleRate: number): Float32Array {
  const pad = Math.round(0.5 * sampleRate);
  const out = new Float32Array(x.length + 2 * pad);
  out.set(x, pad);
  return out;
}

const semitones = (a: number, b: number): number => Math.abs(12 * Math.log2(a / b));

describe('probeSample: the container from the bytes, the duration from the decoded audio', () => {
  it('accepts wav, mp3 and m4a (AAC, index at the end) and measures the decoded duration', async () => {
    const wav = await probeSample(fixture('jfk.wav'));
    expect(wav).toMatchObject({ format: 'wav', sampleRate: 16000, channels: 1 });
    expect(wav.durationSec).toBeCloseTo(11, 1);
    const mp3 = await probeSample(fixture('jfk.mp3'));
    expect(mp3.format).toBe('mp3');
    expect(mp3.codec).toMatch(/layer 3/i);
    expect(mp3.durationSec).toBeGreaterThan(10.5);
    const m4a = path.join(dir, 'jfk.m4a');
    // ffmpeg writes the moov index after the data unless told otherwise: the case a pipe cannot decode.
    execFileSync(FFMPEG, ['-loglevel', 'error', '-y', '-i', fixture('jfk.wav'), '-c:a', 'aac', '-b:a', '64k', m4a]);
    const probed = await probeSample(m4a);
    expect(probed.format).toBe('m4a');
    expect(probed.codec).toMatch(/aac/i);
    expect(probed.durationSec).toBeGreaterThan(10.5);
  });

  it('reads an m4a of several megabytes whose index comes after its audio (ALAC)', async () => {
    const big = path.join(dir, 'long.m4a');
    execFileSync(FFMPEG, [
      ...['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'anoisesrc=sample_rate=44100:duration=60:amplitude=0.3'],
      ...['-ac', '2', '-c:a', 'alac', big],
    ]);
    expect(readFileSync(big).length).toBeGreaterThan(5_000_000);
    const probed = await probeSample(big);
    expect(probed).toMatchObject({ format: 'm4a', sampleRate: 44100, channels: 2 });
    expect(probed.codec).toMatch(/alac/i);
    expect(probed.durationSec).toBeCloseTo(60, 1);
  });

  it('judges by the bytes, not the name: an mp3 named .wav is an mp3, a text file named .mp3 is refused', async () => {
    const renamed = path.join(dir, 'really-mp3.wav');
    copyFileSync(fixture('jfk.mp3'), renamed);
    expect((await probeSample(renamed)).format).toBe('mp3');
    expect(await codeOf(probeSample(file('notes.mp3', 'Hello, this is only text.\n'.repeat(2000))))).toBe(
      'UNSUPPORTED_FILE_TYPE',
    );
    expect(
      await codeOf(probeSample(file('image.m4a', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(5000)])))),
    ).toBe('UNSUPPORTED_FILE_TYPE');
  });

  it('refuses empty, header-only, corrupt and random files with UNSUPPORTED_FILE_TYPE, never another error', async () => {
    expect(await codeOf(probeSample(file('empty.wav', Buffer.alloc(0))))).toBe('UNSUPPORTED_FILE_TYPE');
    expect(await codeOf(probeSample(file('header.wav', readFileSync(fixture('jfk.wav')).subarray(0, 44))))).toBe(
      'UNSUPPORTED_FILE_TYPE',
    );
    // An ftyp box and nothing decodable after it.
    const fakeM4a = Buffer.concat([Buffer.from('00000018667479704d344120000000004d344120', 'hex'), Buffer.alloc(4000, 7)]);
    expect(await codeOf(probeSample(file('broken.m4a', fakeM4a)))).toBe('UNSUPPORTED_FILE_TYPE');
    let seed = 7;
    const noise = Buffer.from(Buffer.alloc(200_000, 0).map(() => (seed = (seed * 1103515245 + 12345) & 0xff)));
    expect(await codeOf(probeSample(file('random.mp3', noise)))).toBe('UNSUPPORTED_FILE_TYPE');
    // The mp3's tag and a few bytes of one frame: nothing decodes.
    expect(await codeOf(probeSample(file('cut.mp3', readFileSync(fixture('jfk.mp3')).subarray(0, 80))))).toBe(
      'UNSUPPORTED_FILE_TYPE',
    );
  });

  it('a truncated mp3 counts only the audio that decodes', async () => {
    const mp3 = readFileSync(fixture('jfk.mp3'));
    expect(await codeOf(probeSample(file('half.mp3', mp3.subarray(0, Math.floor(mp3.length / 2)))))).toBe('AUDIO_TOO_SHORT');
  });

  it('refuses under 10 s and over 300 s of decoded audio, with the bounds and the duration', async () => {
    const rate = 8000;
    const tone = (sec: number) => {
      const x = new Float32Array(sec * rate);
      for (let i = 0; i < x.length; i++) x[i] = 0.2 * Math.sin((2 * Math.PI * 200 * i) / rate);
      return encodeWav(x, rate);
    };
    const short = probeSample(file('nine.wav', tone(9)));
    await expect(short).rejects.toMatchObject({ code: 'AUDIO_TOO_SHORT', params: { min: 10, max: 300, duration: 9 } });
    const long = probeSample(file('long.wav', tone(301)));
    await expect(long).rejects.toMatchObject({ code: 'AUDIO_TOO_LONG', params: { min: 10, max: 300, duration: 301 } });
    expect((await probeSample(file('ten.wav', tone(10)))).durationSec).toBeCloseTo(10, 2);
  });

  it('a WAV whose header claims more than its data holds is measured by what decodes', async () => {
    const wav = Buffer.from(readFileSync(fixture('jfk.wav')).subarray(0, 44 + 16000 * 2 * 5));
    expect(await codeOf(probeSample(file('lying.wav', wav)))).toBe('AUDIO_TOO_SHORT');
  });

  it('stops, killing ffmpeg, when its signal aborts', async () => {
    const ac = new AbortController();
    ac.abort(new Error('client left'));
    await expect(probeSample(fixture('jfk.wav'), { signal: ac.signal })).rejects.toThrow('client left');
    await expect(decodeToPcm(fixture('jfk.wav'), 16000, { signal: ac.signal })).rejects.toThrow('client left');
  });

  it('sniffFormat knows the magic numbers and nothing else', () => {
    expect(sniffFormat(readFileSync(fixture('jfk.wav')))).toBe('wav');
    expect(sniffFormat(readFileSync(fixture('jfk.mp3')))).toBe('mp3');
    expect(sniffFormat(Buffer.from('RIFF....AVI LIST'))).toBeUndefined();
    expect(sniffFormat(Buffer.from('ID3'))).toBeUndefined();
    expect(sniffFormat(Buffer.from('{"__proto__": {"x": 1}}'))).toBeUndefined();
  });
});

describe('measurePcm on signals with known answers', () => {
  it('a 150 Hz pulse train has F0 150 Hz', () => {
    const rate = 16000;
    const x = new Float32Array(3 * rate);
    for (let t = 0; t < x.length; t += rate / 150) x[Math.floor(t)] = 0.8;
    const m = measurePcm(padded(x, rate), rate);
    // Within 1 % (0.17 semitone): the pulses fall on whole samples, so periods jitter by one.
    expect(semitones(m.f0MedianHz, 150)).toBeLessThan(0.17);
    expect(m.f0RangeSemitones).toBeLessThan(0.5);
  });

  it.each([
    ['/a/, male, 16 kHz', 120, [700, 1220, 2600], 16000],
    ['/a/, female, 24 kHz', 210, [850, 1650, 2950], 24000],
    ['/ɛ/, male, 22.05 kHz', 110, [550, 1770, 2490], 22050],
  ] as const)('formants of a vowel made with known formants, %s, within 10 %%', (_, f0, formants, rate) => {
    const x = vowel(
      f0,
      formants.map((f, i) => [f, 70 + 30 * i] as [number, number]),
      3,
      rate,
    );
    const m = measurePcm(padded(x, rate), rate);
    m.formantsHz.forEach((f, i) => expect(Math.abs(f - formants[i]!) / formants[i]!).toBeLessThan(0.1));
    expect(semitones(m.f0MedianHz, f0)).toBeLessThan(0.2);
    expect(m.speechSec).toBeGreaterThan(2.5);
    expect(m.speechSec).toBeLessThan(3.5);
    expect(m.durationSec).toBeCloseTo(4, 2);
    // Digital silence around it: no noise at all.
    expect(m.noisy).toBe(false);
  });

  it('the LTAS of white noise is flat, of a low-passed one falls; the distance ignores level', () => {
    const rate = 16000;
    let seed = 1;
    const white = new Float32Array(4 * rate).map(() => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.5);
    const flat = ltas(white, rate);
    expect(flat).toHaveLength(LTAS_BANDS.length);
    expect(Math.max(...flat) - Math.min(...flat)).toBeLessThan(3);
    const low = white.slice();
    for (let i = 1; i < low.length; i++) low[i] = 0.9 * low[i - 1]! + 0.1 * low[i]!;
    const falling = ltas(low, rate);
    expect(falling[0]! - falling[falling.length - 1]!).toBeGreaterThan(20);
    const quieter = ltas(
      white.map((v) => v * 0.1),
      rate,
    );
    expect(ltasDistance(flat, quieter)).toBeLessThan(0.01);
    expect(ltasDistance(flat, falling)).toBeGreaterThan(5);
  });

  it('counts syllables: 4 bursts a second measure about 4 syllables a second', () => {
    const rate = 16000;
    const x = vowel(
      140,
      [
        [700, 80],
        [1200, 90],
        [2600, 120],
      ],
      5,
      rate,
    );
    for (let i = 0; i < x.length; i++) x[i]! *= Math.sin((Math.PI * 4 * i) / rate) ** 2;
    const m = measurePcm(padded(x, rate), rate);
    expect(m.speakingRate).toBeGreaterThan(3.2);
    expect(m.speakingRate).toBeLessThan(4.8);
  });

  it('speech with hiss and long pauses: the rate counts the speech, not the pauses', () => {
    const rate = 16000;
    const burst = (sec: number) => {
      const x = vowel(
        140,
        [
          [700, 80],
          [1200, 90],
          [2600, 120],
        ],
        sec,
        rate,
      );
      for (let i = 0; i < x.length; i++) x[i]! *= Math.sin((Math.PI * 4 * i) / rate) ** 2;
      return x;
    };
    // 2 s of speech, 1.5 s of pause, 2 s of speech, 1.5 s of pause, 2 s of speech; hiss 40 dB under the voice throughout.
    const parts = [burst(2), new Float32Array(1.5 * rate), burst(2), new Float32Array(1.5 * rate), burst(2)];
    const x = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((o, p) => (x.set(p, o), o + p.length), 0);
    let seed = 7;
    const hissy = padded(x, rate).map((v) => v + ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.006);
    const m = measurePcm(hissy, rate);
    expect(m.noisy).toBe(false);
    expect(m.speechSec).toBeGreaterThan(5);
    expect(m.speechSec).toBeLessThan(6.6);
    expect(m.speakingRate).toBeGreaterThan(3.2);
    expect(m.speakingRate).toBeLessThan(4.8);
  });

  it('gatePauses drops long runs near the noise floor inside the speech, and keeps short dips and loud frames', () => {
    // 30 ms frame powers: a floor of 1e-6 (-60 dB), speech at 1e-2 (-20 dB).
    const powers = new Float64Array(60).fill(1e-2);
    powers.fill(1e-6, 0, 10); // leading silence the VAD left out
    powers.fill(1.5e-6, 20, 30); // a 300 ms pause, hiss only
    powers.fill(1.5e-6, 40, 44); // a 120 ms stop closure
    const flags = new Uint8Array(60).fill(1).fill(0, 0, 10);
    const out = gatePauses(powers, flags);
    expect([...out.subarray(20, 30)].every((f) => f === 0)).toBe(true);
    expect([...out.subarray(40, 44)].every((f) => f === 1)).toBe(true);
    expect([...out.subarray(10, 20)].every((f) => f === 1)).toBe(true);
    expect(out.reduce((a, f) => a + f, 0)).toBe(40);
    // A recording where the "floor" is the voice itself (no pauses at all) loses nothing.
    expect([...gatePauses(new Float64Array(60).fill(1e-2), new Uint8Array(60).fill(1))].every((f) => f === 1)).toBe(true);
    // Digital silence only: nothing to gate, nothing thrown.
    expect(gatePauses(new Float64Array(60), new Uint8Array(60)).every((f) => f === 0)).toBe(true);
  });

  it('a noisy sample is called noisy and denoised before it is measured; its F0 survives', () => {
    const rate = 16000;
    const x = padded(
      vowel(
        150,
        [
          [700, 80],
          [1220, 90],
          [2600, 120],
        ],
        4,
        rate,
      ),
      rate,
    );
    let seed = 3;
    const noisy = x.map((v) => v + ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.12);
    const m = measurePcm(noisy, rate);
    expect(m.snrDb).toBeLessThan(20);
    expect(m.noisy).toBe(true);
    expect(m.denoised).toBe(true);
    expect(semitones(m.f0MedianHz, 150)).toBeLessThan(0.3);
  });

  it('survives silence and tiny inputs without NaN', () => {
    for (const x of [new Float32Array(0), new Float32Array(100), new Float32Array(16000)]) {
      const m = measurePcm(x, 16000);
      expect(m.speechSec).toBe(0);
      expect(m.f0MedianHz).toBe(0);
      expect(Number.isNaN(m.snrDb)).toBe(false);
      expect(m.ltas.every((v) => Number.isFinite(v))).toBe(true);
    }
  });
});

describe('analyzeSample on real speech', () => {
  it('jfk.wav: an adult male near 250 Hz in that excited speech, clean, about 7.5 s of articulation', async () => {
    const { probe, measures: m } = await analyzeSample(fixture('jfk.wav'));
    expect(probe.format).toBe('wav');
    expect(semitones(m.f0MedianHz, 250)).toBeLessThan(1.5);
    expect(m.f0RangeSemitones).toBeGreaterThan(4);
    // 11 s with two long pauses the VAD keeps for their hiss: taken out, about 7.5 s of speech remain.
    expect(m.speechSec).toBeGreaterThan(6.5);
    expect(m.speechSec).toBeLessThan(8.5);
    expect(m.speakingRate).toBeGreaterThan(2.7);
    expect(m.speakingRate).toBeLessThan(5);
    // A man's vocal tract: F1..F3 within the adult ranges.
    expect(m.formantsHz[0]).toBeGreaterThan(350);
    expect(m.formantsHz[0]).toBeLessThan(800);
    expect(m.formantsHz[1]).toBeGreaterThan(1100);
    expect(m.formantsHz[1]).toBeLessThan(2000);
    expect(m.formantsHz[2]).toBeGreaterThan(2000);
    expect(m.formantsHz[2]).toBeLessThan(3200);
    expect(m.loudnessLufs).toBeGreaterThan(-30);
    expect(m.noisy).toBe(false);
  });

  it('measures in its own thread exactly what measurePcm measures here, and stops when aborted', async () => {
    const { measures } = await analyzeSample(fixture('jfk.wav'));
    const { samples, sampleRate } = await decodeToPcm(fixture('jfk.wav'), 16000);
    expect(measures).toEqual(measurePcm(samples, sampleRate));
    // Aborted while the thread measures: the thread is ended with its work.
    const ac = new AbortController();
    const running = measureInThread(samples.slice(), sampleRate, ac.signal);
    ac.abort(new Error('client left'));
    await expect(running).rejects.toThrow('client left');
    // The thread that was stopped is replaced: the next analysis works.
    expect((await analyzeSample(fixture('jfk.wav'))).measures).toEqual(measures);
  });

  it('the mp3 of the same recording measures the same voice', async () => {
    const [wav, mp3] = await Promise.all([analyzeSample(fixture('jfk.wav')), analyzeSample(fixture('jfk.mp3'))]);
    expect(semitones(wav.measures.f0MedianHz, mp3.measures.f0MedianHz)).toBeLessThan(0.3);
    expect(ltasDistance(wav.measures.ltas, mp3.measures.ltas)).toBeLessThan(1.5);
  });

  it('the LJ speaker (eight files joined, about 50 s): an adult female near 210 Hz', async () => {
    const { probe, measures: m } = await analyzeSample(joinedLj());
    expect(probe.durationSec).toBeGreaterThan(45);
    expect(semitones(m.f0MedianHz, 210)).toBeLessThan(1.5);
    expect(m.speakingRate).toBeGreaterThan(3);
    expect(m.speakingRate).toBeLessThan(6);
    expect(m.noisy).toBe(false);
    // Her formants sit above his.
    const jfk = (await analyzeSample(fixture('jfk.wav'))).measures;
    expect(m.formantsHz[1] + m.formantsHz[2]).toBeGreaterThan(jfk.formantsHz[1] + jfk.formantsHz[2]);
  });

  it('a clean sample with noise added at 10 dB SNR is called noisy and its F0 still found', async () => {
    const { samples, sampleRate } = await decodeToPcm(fixture('jfk.wav'));
    let power = 0;
    for (const v of samples) power += v * v;
    power /= samples.length;
    const sigma = Math.sqrt(power / 10);
    let seed = 11;
    const gauss = (): number => {
      const u = (seed = (seed * 16807) % 2147483647) / 2147483647;
      const v = (seed = (seed * 16807) % 2147483647) / 2147483647;
      return Math.sqrt(-2 * Math.log(u + 1e-12)) * Math.cos(2 * Math.PI * v);
    };
    const m = measurePcm(
      samples.map((v) => v + sigma * gauss()),
      sampleRate,
    );
    expect(m.noisy).toBe(true);
    expect(m.denoised).toBe(true);
    const clean = (await analyzeSample(fixture('jfk.wav'))).measures;
    expect(semitones(m.f0MedianHz, clean.f0MedianHz)).toBeLessThan(1);
  });
});
