/**
 * A one-sentence file encoded while its engine runs: the pieces are gained, limited and resampled
 * exactly as the whole-sentence DSP stage would, and a sentence that ends outside the loudness
 * tolerance is normalized and sent again whole.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToFileSink } from '../src/audio/encoder-protocol.ts';
import { decodeAudio } from '../src/audio/ffmpeg.ts';
import { integratedLoudness, LimiterStream, limit, normalizeLoudness, TARGET_LUFS } from '../src/dsp/loudness.ts';
import { PolyphaseStream, resamplePolyphase } from '../src/formats/polyphase.ts';
import { EspeakEngine } from '../src/engines/espeak.ts';
import { runEngine } from '../src/pipeline/run-engine.ts';
import { LOUDNESS_TOLERANCE_LU, sender, synthesizeInto } from '../src/pool/streamed.ts';
import { detectWatermark, embedWatermark } from '../src/watermark/index.ts';
import type { SynthesisJob } from '../src/pool/protocol.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import { buzz, ffmpegLoudness } from './support/audio.ts';

const concat = (parts: Float32Array[]): Float32Array => {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** Where two signals first differ, or -1 (toEqual's diff of long arrays is too slow to print). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** Pieces of irregular sizes, as an engine gives them. */
function pieces(x: Float32Array): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0, k = 0; i < x.length; k++) {
    const n = [1, 7, 2206, 311, 4096, 55][k % 6]!;
    out.push(x.slice(i, i + n));
    i += n;
  }
  return out;
}

describe('streaming DSP', () => {
  it('limits piece by piece to the very samples the whole-signal limiter gives', () => {
    // Loud bursts near piece edges, at the start and at the very end.
    const x = Float32Array.from(
      { length: 40000 },
      (_, i) => 1.7 * Math.sin(i / 9) * Math.sin(i / 2500) + (i % 1733 === 0 ? 1.95 : 0),
    );
    x[x.length - 1] = -2;
    const ceiling = Math.pow(10, -1 / 20);
    const whole = limit(x.slice(), 22050, ceiling);
    const s = new LimiterStream(22050, ceiling);
    const out = concat([...pieces(x).map((p) => s.push(p)), s.end()]);
    expect(out.length).toBe(x.length);
    expect(firstDifference(out, whole)).toBe(-1);
    // Quiet audio passes unchanged.
    const quiet = buzz(120, 1, 22050, 0.2);
    const q = new LimiterStream(22050, ceiling);
    expect(firstDifference(concat([...pieces(quiet).map((p) => q.push(p)), q.end()]), quiet)).toBe(-1);
  });

  it('resamples piece by piece to the very samples of the whole-signal resampler', () => {
    const x = buzz(140, 1.3, 22050, 0.4);
    for (const [from, to] of [
      [22050, 24000],
      [22050, 48000],
      [16000, 24000],
      [24000, 24000],
    ] as const) {
      const input = from === 22050 ? x : buzz(140, 1.3, from, 0.4);
      const s = new PolyphaseStream(from, to);
      const out = concat([...pieces(input).map((p) => s.push(p)), s.end()]);
      expect(firstDifference(out, resamplePolyphase(input, from, to))).toBe(-1);
    }
  });
});

const KEY = new Uint8Array(32).map((_, i) => (i * 41 + 3) & 255);

describe('one sentence into the encoder', () => {
  const engine = new EspeakEngine();
  const voice = engine.listVoices().find((v) => v.id === 'espeak:en-us')!;
  const text = 'The pieces of this sentence reach the encoder while the engine is still speaking.';
  const job = (extra: Partial<SynthesisJob> = {}): SynthesisJob => ({
    engine: 'espeak',
    voice,
    text,
    speed: 1,
    pitch: 0,
    profile: voice.profile,
    sampleRate: 24000,
    loudness: true,
    ...extra,
  });

  /** Runs synthesizeInto and gathers what it sent to the encoder's end of the port. */
  async function run(
    j: SynthesisJob,
    mark?: { key: Uint8Array; payload: number },
  ): Promise<{ messages: ToFileSink[]; result: Awaited<ReturnType<typeof synthesizeInto>> }> {
    const { port1, port2 } = new MessageChannel();
    const messages: ToFileSink[] = [];
    const done = new Promise<void>((resolve) => {
      port1.on('message', (m: ToFileSink) => {
        messages.push(m);
        if (m.type === 'end' || m.type === 'whole' || m.type === 'fail') resolve();
      });
    });
    const result = await synthesizeInto(engine, j, port2 as MessagePort, mark);
    await done;
    port1.close();
    port2.close();
    return { messages, result };
  }

  const pcmOf = (messages: ToFileSink[]): Float32Array =>
    concat(messages.flatMap((m) => (m.type === 'pcm' ? [m.samples] : m.type === 'whole' ? [m.samples] : [])));

  it('learns the gain on a first sentence, then sends pieces while the engine runs, on target', async () => {
    const first = await run(job({ keepRates: [22050] }));
    // No gain known: the whole sentence through the DSP stage, sent at once, and a gain to learn.
    expect(first.messages.map((m) => m.type)).toEqual(['whole']);
    expect(first.result.streamed).toBe(false);
    expect(first.result.gainDb).toBeGreaterThan(0);
    // (eSpeak does not give the very same samples twice: sentences are compared by their measures.)
    const exact = await runEngine(engine, job({ keepRates: [22050] }));
    expect(Math.abs(integratedLoudness(pcmOf(first.messages), 22050) - TARGET_LUFS)).toBeLessThan(0.3);

    const second = await run(job({ keepRates: [22050], gainDb: first.result.gainDb! }));
    const types = second.messages.map((m) => m.type);
    expect(types[0]).toBe('open');
    expect(types.filter((t) => t === 'pcm').length).toBeGreaterThan(3);
    expect(types.at(-1)).toBe('end');
    expect(second.result.streamed).toBe(true);
    const sent = pcmOf(second.messages);
    expect(second.result.length).toBe(sent.length);
    expect(Math.abs(sent.length - exact.samples.length)).toBeLessThan(0.05 * 22050);
    expect(Math.abs(integratedLoudness(sent, 22050) - TARGET_LUFS)).toBeLessThanOrEqual(LOUDNESS_TOLERANCE_LU);
    expect(Math.abs(ffmpegLoudness(sent, 22050) - TARGET_LUFS)).toBeLessThan(LOUDNESS_TOLERANCE_LU + 0.3);
    expect(Math.max(...sent.map(Math.abs))).toBeLessThanOrEqual(Math.pow(10, -1 / 20) + 1e-6);
    expect(second.result.words.map((w) => w.word)).toEqual(exact.words.map((w) => w.word));
  });

  it('sends the sentence again, normalized, when the guessed gain ends outside the tolerance', async () => {
    const learnt = (await run(job())).result.gainDb!;
    for (const wrong of [learnt + 6, learnt - 6]) {
      const r = await run(job({ gainDb: wrong }));
      const types = r.messages.map((m) => m.type);
      expect(types).toContain('pcm');
      expect(types.at(-1)).toBe('whole');
      expect(r.result.streamed).toBe(false);
      const again = r.messages.at(-1) as Extract<ToFileSink, { type: 'whole' }>;
      // Resampled to the job's 24 kHz (22,050 Hz is not kept here), normalized as always.
      expect(again.sampleRate).toBe(24000);
      expect(Math.abs(integratedLoudness(again.samples, 24000) - TARGET_LUFS)).toBeLessThan(0.3);
      // What it learnt corrects the wrong guess.
      expect(Math.abs(r.result.gainDb! - learnt)).toBeLessThan(1.5);
    }
  });

  it('takes the ordinary path for a job with a step it does not know, and for speed the engine stretches', async () => {
    const extra = await run({ ...job({ gainDb: 5 }), somethingNew: true } as unknown as SynthesisJob);
    expect(extra.messages.map((m) => m.type)).toEqual(['whole']);
    // eSpeak stops at 80 wpm: slower speech is stretched afterwards, so its pieces are not final.
    const slow = await run(job({ gainDb: 5, speed: 0.4 }));
    expect(slow.messages.map((m) => m.type)).toEqual(['whole']);
    const normal = pcmOf((await run(job({ gainDb: 5 }))).messages);
    const stretched = pcmOf(slow.messages);
    expect(stretched.length).toBeGreaterThan(2 * normal.length);
    expect(Math.abs(integratedLoudness(stretched, 24000) - TARGET_LUFS)).toBeLessThan(0.3);
  });

  it('puts the watermark in what it sends, piece by piece and whole', async () => {
    const mark = { key: KEY, payload: 0x5eed1234 };
    const learnt = (await run(job())).result.gainDb!;
    const pieces = await run(job({ gainDb: learnt }), mark);
    expect(pieces.result.streamed).toBe(true);
    // What the embedder held back goes out before the end: the file is as long as the sentence.
    const types = pieces.messages.map((m) => m.type);
    expect(types[0]).toBe('open');
    expect(types.at(-1)).toBe('end');
    const sent = pcmOf(pieces.messages);
    expect(sent.length).toBe(pieces.result.length);
    const whole = await run(job(), mark);
    expect(whole.messages.map((m) => m.type)).toEqual(['whole']);
    for (const pcm of [sent, pcmOf(whole.messages)]) {
      const found = detectWatermark(pcm, 24000, KEY);
      expect(found.detected).toBe(true);
      expect(found.falseAlarmRate).toBeLessThan(1e-6);
    }
    // Without a mark the same sentence carries none.
    expect(detectWatermark(pcmOf((await run(job({ gainDb: learnt }))).messages), 24000, KEY).detected).toBe(false);
  });

  it('marks pieces into the very samples of the whole-buffer embedder, and a whole sentence in place of its pieces', async () => {
    const mark = { key: KEY, payload: 77 };
    const x = buzz(150, 2.5, 24000, 0.3);
    const { port1, port2 } = new MessageChannel();
    const got: ToFileSink[] = [];
    const closed = new Promise<void>((resolve) =>
      port1.on('message', (m: ToFileSink) => {
        got.push(m);
        if (m.type === 'end') resolve();
      }),
    );
    const send = sender(port2, mark);
    send({ type: 'open', sampleRate: 24000 });
    for (const p of [x.subarray(0, 5000), x.subarray(5000, 5001), x.subarray(5001)]) send({ type: 'pcm', samples: p.slice() });
    send({ type: 'end' });
    await closed;
    expect(firstDifference(pcmOf(got), embedWatermark(x, 24000, mark))).toBe(-1);
    got.length = 0;
    const replaced = new Promise<void>((resolve) => port1.once('message', () => resolve()));
    send({ type: 'whole', samples: x.slice(), sampleRate: 24000 });
    await replaced;
    expect(firstDifference(pcmOf(got), embedWatermark(x, 24000, mark))).toBe(-1);
    port1.close();
    port2.close();
  });

  it('tells the encoder when the engine fails', async () => {
    const { port1, port2 } = new MessageChannel();
    const got = new Promise<ToFileSink>((resolve) => port1.once('message', resolve));
    await expect(synthesizeInto(engine, job({ voice: { ...voice, variant: 'no-such-voice' } }), port2)).rejects.toThrow();
    expect((await got).type).toBe('fail');
    port1.close();
  });
});

describe('one-sentence files through createSpeech', () => {
  let speech: Speech;
  beforeAll(async () => {
    speech = await createSpeech({ poolSize: 2, cache: false });
  }, 90_000);
  afterAll(() => speech.close());

  it('encodes ahead once the voice is known, into files of the right length and loudness', async () => {
    const text = 'A file of one sentence is encoded while the engine speaks it';
    // Not the warm-up's voice (espeak:en-us): the warm-up's one-sentence files already taught that one's loudness.
    const voiceId = 'espeak:en-gb-x-rp';
    const results = [];
    for (const [i, format] of (['mp3', 'mp3', 'mp3', 'opus', 'opus'] as const).entries())
      results.push({ format, r: await speech.synthesize({ text: `${text}, take ${i + 1}.`, voiceId, format }) });
    expect(results[0]!.r.encodedAhead).toBe(false);
    expect(results.slice(1).some(({ r }) => r.encodedAhead)).toBe(true);
    for (const { format, r } of results) {
      expect(r.sentences).toBe(1);
      expect(r.words.length).toBeGreaterThan(8);
      const decoded = await decodeAudio(r.audio, format === 'opus' ? 'ogg' : 'mp3', 24000);
      expect(Math.abs(decoded.samples.length / 24000 - r.durationSec)).toBeLessThan(0.03);
      expect(Math.abs(ffmpegLoudness(decoded.samples, 24000) - TARGET_LUFS)).toBeLessThan(1);
    }
  });

  it('stops a one-sentence file whose caller leaves, and keeps working after', async () => {
    const controller = new AbortController();
    const p = speech.synthesize({
      text: 'This caller leaves at once.',
      voiceId: 'espeak:en-us',
      format: 'mp3',
      signal: controller.signal,
    });
    controller.abort(new Error('caller left'));
    await expect(p).rejects.toThrow('caller left');
    const ok = await speech.synthesize({ text: 'The next caller gets a file.', voiceId: 'espeak:en-us', format: 'mp3' });
    expect(ok.audio.length).toBeGreaterThan(1000);
  });

  it('marks a file encoded ahead, in the worker, and the mark is found again in the mp3', async () => {
    const marked = await createSpeech({ poolSize: 1, cache: false, warmup: false, watermark: { key: KEY } });
    try {
      const voiceId = 'espeak:en-us';
      const text = 'This sentence carries a mark that its worker puts in as the engine speaks';
      for (let i = 0; i < 3; i++) {
        const r = await marked.synthesize({ text: `${text}, take ${i + 1}.`, voiceId, format: 'mp3' });
        if (i > 0) expect(r.encodedAhead).toBe(true);
        expect(r.mark).toEqual(expect.any(Number));
        const decoded = await decodeAudio(r.audio, 'mp3', 24000);
        const found = detectWatermark(decoded.samples, 24000, KEY);
        expect(found.detected).toBe(true);
        expect(found.falseAlarmRate).toBeLessThan(1e-6);
      }
    } finally {
      await marked.close();
    }
  }, 60_000);

  it('encodes a long text sentence by sentence into one file of the right length', async () => {
    const text = Array.from({ length: 6 }, (_, i) => `Sentence number ${i + 1} of a longer text goes here.`).join(' ');
    for (const format of ['mp3', 'opus'] as const) {
      const r = await speech.synthesize({ text, voiceId: 'espeak:en-us', format });
      expect(r.sentences).toBe(6);
      const decoded = await decodeAudio(r.audio, format === 'opus' ? 'ogg' : 'mp3', 24000);
      expect(Math.abs(decoded.samples.length / 24000 - r.durationSec)).toBeLessThan(0.03);
    }
  });
});

// The reference normalizer and the streaming one agree on a signal that needs no limiting.
it('gains a quiet sentence exactly as the normalizer does when the guess is right', () => {
  const x = buzz(130, 2, 22050, 0.05);
  const db = TARGET_LUFS - integratedLoudness(x, 22050);
  const gain = Math.pow(10, db / 20);
  const s = new LimiterStream(22050, Math.pow(10, -1 / 20));
  const out = concat([...pieces(x).map((p) => s.push(p.map((v) => v * gain))), s.end()]);
  const normalized = normalizeLoudness(x, 22050);
  expect(Math.abs(integratedLoudness(out, 22050) - integratedLoudness(normalized, 22050))).toBeLessThan(0.01);
});

describe('the interactive lane', () => {
  it('runs a waited-on sentence beside busy background workers, and never runs background work', async () => {
    const { WorkerPool } = await import('../src/pool/pool.ts');
    const pool = new WorkerPool({ size: 1 });
    try {
      await pool.warmup();
      const engine = new EspeakEngine();
      const voice = engine.listVoices().find((v) => v.id === 'espeak:en-us')!;
      const job = (text: string): SynthesisJob => ({
        engine: 'espeak',
        voice,
        text,
        speed: 1,
        pitch: 0,
        profile: voice.profile,
        sampleRate: 24000,
        loudness: true,
      });
      const long = 'A long background sentence that keeps the only background worker busy for a while, '.repeat(6);
      const order: string[] = [];
      const background = [1, 2, 3].map((i) => pool.synthesize(job(`${long} ${i}.`)).then(() => order.push(`background ${i}`)));
      // Background work waits for the background worker: the lane stays free.
      expect(pool.busy).toBe(1);
      expect(pool.queued).toBe(2);
      const urgent = pool.synthesize(job('Short and waited for.'), { urgent: true }).then(() => order.push('urgent'));
      expect(pool.busy).toBe(2);
      await Promise.all([...background, urgent]);
      expect(order.indexOf('urgent')).toBeLessThan(order.indexOf('background 2'));
    } finally {
      await pool.close();
    }
  });
});
