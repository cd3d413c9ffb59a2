/**
 * Uploads built to exhaust the decoder: each is refused from its header or stopped at the decoder's
 * cap (never by the decode's time limit), with nothing written to the temp folder and the process's memory bounded by the cap
 * (301 s of mono float at the analysis rate: 19 MB), never by what the file claims.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeSample, decodeToPcm, referenceFromSample } from '../src/analysis/index.ts';
import { DECODE_MAX_SEC, decodeCapped, SAMPLE_MAX_SEC } from '../src/analysis/probe.ts';
import { FFMPEG } from '../src/audio/ffmpeg.ts';
import { isSpeechError } from '../src/core/errors.ts';
import { fixture } from './support/fixtures.ts';
import { makeHostileFiles, watchPeaks, type HostileFiles } from './support/hostile.ts';

const MB = 1_000_000;
let dir: string;
let scratch: string;
let files: HostileFiles;
const savedTmp = process.env.TMPDIR;

/** Bytes of every file under the process's temp folder (pointed at a fresh one for this file). */
async function tempBytes(): Promise<number> {
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else
        total += await stat(p).then(
          (s) => s.size,
          () => 0,
        );
    }
  };
  await walk(scratch);
  return total;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'polyvox-hostile-'));
  files = await makeHostileFiles(FFMPEG, dir, fixture('jfk.wav'));
  // Whatever the decoder writes to the temp folder lands here, where it is counted.
  scratch = await mkdtemp(path.join(tmpdir(), 'polyvox-hostile-tmp-'));
  process.env.TMPDIR = scratch;
}, 120_000);
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(dir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

/** How `p` was refused (its code and the reason it gives), and the peaks of memory and temp files meanwhile. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; reason: string; rss: number; disk: number }> {
  const before = process.memoryUsage().rss;
  const peaks = watchPeaks(tempBytes);
  let code = 'resolved';
  let reason = '';
  try {
    await p;
  } catch (e) {
    code = isSpeechError(e) ? e.code : `not a SpeechError: ${String(e)}`;
    reason = e instanceof Error ? e.message : String(e);
  }
  const { rss, disk } = await peaks.stop();
  return { code, reason, rss: rss - before, disk };
}

describe('hostile clone samples', () => {
  it('the hostile files are what they claim: small files declaring hours, or absurd formats', async () => {
    for (const f of Object.values(files)) expect((await stat(f)).size).toBeLessThan(20 * MB);
    expect((await stat(files.m4a12h)).size).toBeLessThan(8 * MB);
  });

  it('a WAV whose header says 1 Hz is refused as unsupported from its header, writing nothing', async () => {
    const r = await refusal(analyzeSample(files.wav1Hz));
    expect(r.code).toBe('UNSUPPORTED_FILE_TYPE');
    expect(r.disk).toBe(0);
    // Before: ffmpeg upsampled 1 Hz to 16 kHz for 120 s, some 18 GB into the temp folder. Now the header is
    // enough, so no decoder runs (a decode's time limit would refuse it too, but only after a minute).
    expect(r.reason).toMatch(/a sample rate of 1 Hz$/);
  });

  it('a WAV whose header says 300 channels is refused as unsupported', async () => {
    const r = await refusal(analyzeSample(files.wav300Channels));
    expect(r.code).toBe('UNSUPPORTED_FILE_TYPE');
    expect(r.disk).toBe(0);
  });

  it('12 hours of AAC silence is too long by its header, before any decoding', async () => {
    const r = await refusal(analyzeSample(files.m4a12h));
    expect(r.code).toBe('AUDIO_TOO_LONG');
    expect(r.disk).toBe(0);
    expect(r.rss).toBeLessThan(100 * MB);
    // The header's 12 hours (the cap would say "more than 300 s"), so nothing was decoded.
    expect(r.reason).toMatch(/lasts 432\d\d(\.\d)? s/);
  });

  it('3 hours of AAC silence is too long, memory bounded', async () => {
    const r = await refusal(analyzeSample(files.m4a3h));
    expect(r.code).toBe('AUDIO_TOO_LONG');
    expect(r.disk).toBe(0);
    // Before: 3 h of float PCM read whole, +1.2 GB.
    expect(r.rss).toBeLessThan(100 * MB);
  });

  it('4 hours of mp3 with no length header is stopped at the cap: too long, memory bounded', async () => {
    const r = await refusal(analyzeSample(files.mp3NoHeader4h));
    expect(r.code).toBe('AUDIO_TOO_LONG');
    expect(r.disk).toBe(0);
    expect(r.rss).toBeLessThan(150 * MB);
    // Refused from the length the frames give, or where the cap is; never by the decode's time limit after a minute
    // (that refusal is UNSUPPORTED_FILE_TYPE).
    expect(r.reason).not.toMatch(/took longer/);
  });

  it('the decoder itself never produces more than its cap, whatever the file holds', async () => {
    const peaks = watchPeaks(tempBytes);
    const out = await decodeCapped(files.m4a3h, 'm4a', 16_000, { maxSec: 20 });
    const { disk } = await peaks.stop();
    expect(out.truncated).toBe(true);
    expect(out.samples.length).toBe(20 * 16_000);
    expect(disk).toBe(0);
    // A file within the cap decodes whole and says so.
    const whole = await decodeCapped(fixture('jfk.wav'), 'wav', 16_000, { maxSec: 20 });
    expect(whole.truncated).toBe(false);
    expect(whole.samples.length / 16_000).toBeGreaterThan(10);
    expect(whole.samples.length / 16_000).toBeLessThan(12);
  });

  it('a time limit ends a decode that runs too long', async () => {
    const r = await refusal(decodeCapped(files.mp3NoHeader4h, 'mp3', 16_000, { maxSec: 10_000, timeoutMs: 50 }));
    expect(r.code).toBe('UNSUPPORTED_FILE_TYPE');
  });

  it('the other decoders of user audio (a stored sample as a cloning reference) are capped too', async () => {
    expect(DECODE_MAX_SEC).toBe(SAMPLE_MAX_SEC + 1);
    const peaks = watchPeaks(tempBytes);
    const before = process.memoryUsage().rss;
    const pcm = await decodeToPcm(files.m4a3h, 24_000);
    const ref = await referenceFromSample(files.mp3NoHeader4h);
    const { rss, disk } = await peaks.stop();
    expect(pcm.samples.length).toBe(DECODE_MAX_SEC * 24_000);
    expect(ref.samples.length).toBeLessThanOrEqual(15 * 24_000);
    expect(disk).toBe(0);
    expect(rss - before).toBeLessThan(200 * MB);
  });

  it('an ordinary sample still decodes and measures', async () => {
    const { probe } = await analyzeSample(fixture('jfk.wav'));
    expect(probe.format).toBe('wav');
    expect(probe.durationSec).toBeGreaterThan(10);
  });
});
