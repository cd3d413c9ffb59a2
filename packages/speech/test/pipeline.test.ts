/** The whole pipeline through createSpeech: worker pool, formats, streaming, cache, loudness, errors. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeAudio, runFfmpeg } from '../src/audio/ffmpeg.ts';
import { countFrames } from '../src/formats/mp3.ts';
import { estimateF0 } from '../src/dsp/f0.ts';
import { decodeWav } from '../src/dsp/pcm.ts';
import { WorkerPool } from '../src/pool/pool.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import { AUDIO_FORMATS, type AudioFormat } from '../src/core/types.ts';
import { ffmpegLoudness } from './support/audio.ts';

let speech: Speech;
beforeAll(async () => {
  speech = await createSpeech({ poolSize: 2 });
}, 90_000);
afterAll(() => speech.close());

/** Decodes with ffmpeg from a file, as a client would; raw PCM is described to it explicitly. */
async function decode(audio: Buffer, format: AudioFormat): Promise<Float32Array> {
  if (format !== 'pcm') return (await decodeAudio(audio, format === 'opus' ? 'ogg' : format, 24000)).samples;
  const dir = mkdtempSync(path.join(tmpdir(), 'polyvox-pcm-'));
  try {
    writeFileSync(path.join(dir, 'in.pcm'), audio);
    await runFfmpeg(['-f', 's16le', '-ar', '24000', '-ac', '1', '-i', path.join(dir, 'in.pcm'), path.join(dir, 'out.wav')]);
    return decodeWav(readFileSync(path.join(dir, 'out.wav'))).samples;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TEXT = 'The pipeline reads this first sentence. Then a second one follows! Does a third one work as well?';

describe('formats', () => {
  it.each(AUDIO_FORMATS)('%s decodes back with ffmpeg to the same length', async (format) => {
    const r = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us', format });
    expect(r.contentType).toBe({ mp3: 'audio/mpeg', wav: 'audio/wav', opus: 'audio/ogg', pcm: 'audio/pcm' }[format]);
    expect(r.sentences).toBe(3);
    expect(r.durationSec).toBeGreaterThan(4);
    const pcm = await decode(r.audio, format);
    expect(Math.abs(pcm.length / 24000 - r.durationSec)).toBeLessThan(0.06);
    if (format === 'mp3') expect(r.audio.length).toBeGreaterThan(r.durationSec * 4000);
  });

  it('streams every format as one valid file of the same length', async () => {
    for (const format of AUDIO_FORMATS) {
      // Different pitches: the same length, but not one cache entry.
      const whole = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us+m3', format, pitch: 1 });
      const parts: Buffer[] = [];
      for await (const b of speech.synthesizeStream({ text: TEXT, voiceId: 'espeak:en-us+m3', format, pitch: 2 })) parts.push(b);
      expect(parts.length).toBeGreaterThan(1);
      const pcm = await decode(Buffer.concat(parts), format);
      expect(Math.abs(pcm.length / 24000 - whole.durationSec)).toBeLessThan(0.08);
      if (format === 'mp3') {
        // A finished stream is cached: the same request again is served whole from the cache.
        const again: Buffer[] = [];
        for await (const b of speech.synthesizeStream({ text: TEXT, voiceId: 'espeak:en-us+m3', format, pitch: 2 }))
          again.push(b);
        expect(Buffer.concat(again).equals(Buffer.concat(parts))).toBe(true);
      }
    }
  });
});

/** The input rate an Ogg Opus file declares in its OpusHead (first page, one segment). */
const opusInputRate = (audio: Buffer): number => audio.readUInt32LE(28 + 12);

describe('sample rates', () => {
  it('keeps the engine rate where mp3 has it (eSpeak, 22,050 Hz), whole and streamed, at the right length', async () => {
    const r = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us', format: 'mp3', speed: 1.1 });
    expect(r.sampleRate).toBe(22050);
    const whole = await decodeAudio(r.audio, 'mp3');
    expect(whole.sampleRate).toBe(22050);
    expect(Math.abs(whole.samples.length / 22050 - r.durationSec)).toBeLessThan(0.06);
    const parts: Buffer[] = [];
    for await (const b of speech.synthesizeStream({ text: TEXT, voiceId: 'espeak:en-us', format: 'mp3', speed: 1.2 }))
      parts.push(b);
    const streamed = await decodeAudio(Buffer.concat(parts), 'mp3');
    expect(streamed.sampleRate).toBe(22050);
    expect(Math.abs(streamed.samples.length / 22050 - (r.durationSec * 1.1) / 1.2)).toBeLessThan(0.25);
    expect(estimateF0(streamed.samples, 22050).voicedFraction).toBeGreaterThan(0.2);
  });

  it('resamples where the format lacks the engine rate (Ogg Opus) and keeps WAV and PCM at the configured rate', async () => {
    const opus = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us', format: 'opus', speed: 1.1 });
    expect(opus.sampleRate).toBe(24000);
    expect(opusInputRate(opus.audio)).toBe(24000);
    const wav = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us', format: 'wav', speed: 1.1 });
    expect(wav.sampleRate).toBe(24000);
    expect(decodeWav(wav.audio).sampleRate).toBe(24000);
  });

  it('puts every format at a rate the operator configured', async () => {
    const fixed = await createSpeech({ poolSize: 1, sampleRate: 24000, cache: false, warmup: false });
    try {
      const r = await fixed.synthesize({ text: 'One short sentence here.', voiceId: 'espeak:en-us', format: 'mp3' });
      expect(r.sampleRate).toBe(24000);
      const pcm = await decodeAudio(r.audio, 'mp3');
      expect(pcm.sampleRate).toBe(24000);
      expect(Math.abs(pcm.samples.length / 24000 - r.durationSec)).toBeLessThan(0.06);
    } finally {
      await fixed.close();
    }
  });
});

describe('streaming', () => {
  it('sends a fraction of a second of the first sentence ahead of the rest of it, one valid file in all', async () => {
    const text = 'This single sentence is long enough to take several seconds to say, so its start goes out first.';
    const parts: Buffer[] = [];
    for await (const b of speech.synthesizeStream({ text, voiceId: 'espeak:en-us', format: 'mp3', pitch: 3 })) parts.push(b);
    // The Info frame, then the bytes of the first slice alone (64 kb/s: 8,000 bytes a second), then the rest.
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(countFrames(parts[0]!)?.frames).toBe(1);
    expect(parts[1]!.length).toBeGreaterThan(0.1 * 8000);
    expect(parts[1]!.length).toBeLessThan(0.5 * 8000);
    expect(parts.slice(2).reduce((n, p) => n + p.length, 0)).toBeGreaterThan(2.5 * 8000);
    const whole = await decodeAudio(Buffer.concat(parts), 'mp3');
    expect(whole.samples.length / whole.sampleRate).toBeGreaterThan(3);
    expect(estimateF0(whole.samples, whole.sampleRate).voicedFraction).toBeGreaterThan(0.2);
  });

  it('delivers the first chunk before the last sentence is synthesized', async () => {
    const text = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a longer text that is streamed.`).join(
      ' ',
    );
    let done = 0;
    let total = 0;
    let doneAtFirstChunk = -1;
    let chunks = 0;
    for await (const b of speech.synthesizeStream({
      text,
      voiceId: 'espeak:en-gb-x-rp',
      format: 'mp3',
      onProgress: (p) => ({ done, total } = p),
    })) {
      expect(b.length).toBeGreaterThan(0);
      if (doneAtFirstChunk < 0) doneAtFirstChunk = done;
      chunks++;
    }
    expect(total).toBe(12);
    expect(done).toBe(12);
    expect(doneAtFirstChunk).toBeLessThan(12);
    expect(chunks).toBeGreaterThan(3);
  });

  it('keeps the event loop free while both workers synthesize', async () => {
    const text = Array.from({ length: 30 }, (_, i) => `Sentence ${i + 1} keeps the two synthesis workers busy for a while.`).join(
      ' ',
    );
    let last = performance.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 5);
    const t0 = performance.now();
    const r = await speech.synthesize({ text, voiceId: 'espeak:en-us+f2', format: 'pcm' });
    const elapsed = performance.now() - t0;
    clearInterval(timer);
    expect(r.durationSec).toBeGreaterThan(60);
    // The work took far longer than any single stall of this thread.
    expect(worst).toBeLessThan(Math.max(150, elapsed / 5));
  });
});

describe('speed', () => {
  const SPOKEN = 'The quick brown fox jumps over the lazy dog. Then it runs all the way back home to sleep.';
  /** Seconds of the file, the first word's end and the last word's start (timings on eSpeak, which reports words). */
  const at = async (voiceId: string, speed: number) => {
    const r = await speech.synthesize({
      text: SPOKEN,
      voiceId,
      format: 'pcm',
      speed,
      ...(voiceId.startsWith('espeak') ? { timings: true } : {}),
    });
    const words = r.timings?.words ?? [];
    return { seconds: r.durationSec, lastStart: words.at(-1)?.start ?? 0 };
  };

  // OpenAI's range, beyond what each engine does natively (eSpeak stops near 2.6, GnuSpeech near 2, Flite slows down
  // its pauses past 2.5): the DSP stage stretches the rest, so 4 takes about a quarter of the time and 0.25 four times.
  it.each(['espeak:en-us', 'flite:slt', 'gnuspeech:male'])(
    '%s speaks 0.25 to 4 in proportion, its timings with it',
    async (voiceId) => {
      const one = await at(voiceId, 1);
      const fast = await at(voiceId, 4);
      const slow = await at(voiceId, 0.25);
      expect(fast.seconds / one.seconds).toBeGreaterThan(0.25 * 0.8);
      expect(fast.seconds / one.seconds).toBeLessThan(0.25 * 1.2);
      expect(slow.seconds / one.seconds).toBeGreaterThan(4 * 0.8);
      expect(slow.seconds / one.seconds).toBeLessThan(4 * 1.2);
      if (voiceId.startsWith('espeak')) {
        expect(fast.lastStart / one.lastStart).toBeGreaterThan(0.25 * 0.8);
        expect(fast.lastStart / one.lastStart).toBeLessThan(0.25 * 1.2);
        expect(slow.lastStart / one.lastStart).toBeGreaterThan(4 * 0.8);
        expect(slow.lastStart / one.lastStart).toBeLessThan(4 * 1.2);
        expect(fast.lastStart).toBeLessThan(fast.seconds);
      }
    },
    120_000,
  );
});

describe('cache', () => {
  it('answers a repeated request from the cache, without synthesis', async () => {
    const req = {
      text: 'Caching makes the second request cheap. It has two sentences.',
      voiceId: 'flite:slt',
      format: 'mp3' as const,
    };
    // Every local synthesis goes through the pool's two entries: counting their calls tells whether the
    // engines ran (a condition, not a time, so it holds on a loaded machine).
    const whole = vi.spyOn(WorkerPool.prototype, 'synthesize');
    const into = vi.spyOn(WorkerPool.prototype, 'synthesizeInto');
    const engineCalls = () => whole.mock.calls.length + into.mock.calls.length;
    try {
      const first = await speech.synthesize(req);
      const afterFirst = engineCalls();
      const second = await speech.synthesize(req);
      expect(first.cached).toBe(false);
      expect(afterFirst).toBeGreaterThan(0);
      expect(second.cached).toBe(true);
      expect(engineCalls()).toBe(afterFirst);
      expect(second.cacheKey).toBe(first.cacheKey);
      expect(second.audio.equals(first.audio)).toBe(true);
      const other = await speech.synthesize({ ...req, speed: 1.25 });
      expect(other.cached).toBe(false);
      expect(engineCalls()).toBeGreaterThan(afterFirst);
    } finally {
      whole.mockRestore();
      into.mockRestore();
    }
  });
});

describe('voices, languages and loudness', () => {
  it('normalizes every engine to one loudness target', async () => {
    for (const voiceId of ['espeak:en-us', 'flite:kal16', 'gnuspeech:female']) {
      const r = await speech.synthesize({
        text: 'Loudness should not depend on the engine that speaks. Here is more text to measure.',
        voiceId,
        format: 'wav',
      });
      const pcm = decodeWav(r.audio);
      expect(Math.abs(ffmpegLoudness(pcm.samples, pcm.sampleRate) - -16)).toBeLessThan(1.5);
    }
  });

  it('reads Chinese text, numbers included, on a Mandarin voice', async () => {
    const r = await speech.synthesize({
      text: '今天是2024年3月5日。我买了2个苹果，花了¥12.50。',
      voiceId: 'espeak:cmn+f1',
      format: 'wav',
    });
    expect(r.language).toBe('zh-CN');
    expect(r.sentences).toBe(2);
    const plain = await speech.synthesize({ text: '今天是。我买了苹果，花了。', voiceId: 'espeak:cmn+f1', format: 'wav' });
    // The digits were read as Chinese words: many more syllables than without them.
    expect(r.durationSec - plain.durationSec).toBeGreaterThan(2);
    expect(speech.prepare({ text: '今天是2024年3月5日。', voiceId: 'espeak:cmn' }).sentences).toEqual([
      '今天是二零二四年三月五日。',
    ]);
  });

  it('mixes voices of one model into a voice between them', async () => {
    const { base, profile } = speech.mix([
      { voiceId: 'espeak:en-us', weight: 1 },
      { voiceId: 'espeak:en-us+f3', weight: 1 },
    ]);
    expect(base.id).toBe('espeak:en-us');
    const f0 = async (voiceId: string, p?: typeof profile): Promise<number> => {
      const voice = speech.getVoice(voiceId)!;
      const r = await speech.synthesize({
        text: 'A mixed voice sits between the voices it mixes.',
        voice,
        format: 'wav',
        ...(p ? { profile: p } : {}),
      });
      return estimateF0(decodeWav(r.audio).samples, 24000).median;
    };
    const low = await f0('espeak:en-us');
    const high = await f0('espeak:en-us+f3');
    const mixed = await f0('espeak:en-us', profile);
    expect(mixed).toBeGreaterThan(low * 1.15);
    expect(mixed).toBeLessThan(high / 1.15);
    expect(() => speech.mix([{ voiceId: 'flite:slt', weight: 1 }])).toThrow(/cannot be mixed/);
    expect(() =>
      speech.mix(
        ['espeak:en-us', 'espeak:en-us+f1', 'espeak:en-us+f2', 'espeak:en-us+m3'].map((voiceId) => ({ voiceId, weight: 1 })),
      ),
    ).toThrow(expect.objectContaining({ code: 'MIX_LIMIT' }));
  });

  it('refuses what it cannot do with the contract error codes', async () => {
    await expect(speech.synthesize({ text: '你好，世界，今天天气很好', voiceId: 'espeak:en-us' })).rejects.toMatchObject({
      code: 'LANGUAGE_UNSUPPORTED',
    });
    await expect(speech.synthesize({ text: 'x'.repeat(5001), voiceId: 'espeak:en-us' })).rejects.toMatchObject({
      code: 'TEXT_TOO_LONG',
      params: { maxLength: 5000 },
    });
    await expect(speech.synthesize({ text: 'Hi.', voiceId: 'espeak:nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(speech.synthesize({ text: 'Hi.', voiceId: 'espeak:en-us', speed: 4.5 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      params: { field: 'speed' },
    });
    await expect(speech.synthesize({ text: '  ', voiceId: 'espeak:en-us' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(speech.estimateCharacters('Hello world, 你好')).toBe(13);
    expect(speech.checkLanguage('Bonjour, je suis une voix et vous êtes là', 'espeak:fr').ok).toBe(true);
  });

  it('renders previews that play', async () => {
    for (const id of ['espeak:cmn+f3', 'espeak:yue', 'espeak:ja', 'espeak:de+m3', 'flite:awb', 'gnuspeech:small_child']) {
      const r = await speech.renderPreview(id, 'mp3');
      expect(r.durationSec).toBeGreaterThan(1);
      const pcm = await decode(r.audio, 'mp3');
      expect(estimateF0(pcm, 24000, { maxHz: 600 }).voicedFraction).toBeGreaterThan(0.15);
    }
  });
});
