import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLocalEngines } from '../src/engines/local.ts';
import { OpenAIEngine } from '../src/engines/openai.ts';
import { MemoryAudioCache } from '../src/pipeline/cache.ts';
import type { SynthesisRequest } from '../src/pipeline/plan.ts';
import { ContentCache } from '../src/speech/content-cache.ts';
import { GAIN_SMOOTHING, GainMemory } from '../src/speech/gains.ts';
import { VoiceLibrary } from '../src/speech/library.ts';
import { marker, payloadOf } from '../src/speech/marking.ts';
import { Planner } from '../src/speech/planning.ts';
import { SpeechThreads } from '../src/speech/threads.ts';

const library = new VoiceLibrary(createLocalEngines({}));
const planner = new Planner(library, 5000);
const request = (over: Partial<SynthesisRequest> = {}): SynthesisRequest => ({
  text: 'Hello there. How are you?',
  voiceId: 'espeak:en-us',
  format: 'mp3',
  ...over,
});

describe('planning (speech/planning.ts)', () => {
  it('keeps a plan for the synthesis after its preparation while the fields stay, and plans again when one changes', () => {
    const p = new Planner(library, 5000);
    const req = request();
    const plan = p.planOf(req, 1_000);
    expect(plan.sentences.length).toBe(2);
    expect(p.planOf(req, 1_001)).toBe(plan);
    // The copy the server synthesizes (its abort signal added) finds the plan its preparation made.
    expect(p.planOf({ ...req, signal: new AbortController().signal }, 1_002)).toBe(plan);
    req.text = 'Something else.';
    const again = p.planOf(req, 1_003);
    expect(again).not.toBe(plan);
    expect(again.sentences).toEqual(['Something else.']);
    // The same text with another field (another object, even an equal one) is planned anew.
    expect(p.planOf(request({ speed: 1.2 }), 1_004)).not.toBe(plan);
    const lexicon = request({ lexicon: [] });
    const withLexicon = p.planOf(lexicon, 1_005);
    expect(p.planOf(request({ lexicon: [] }), 1_006)).not.toBe(withLexicon);
    // Kept seconds, not longer: a plan asked for later is made again.
    const later = p.planOf(request(), 60_000);
    expect(later).not.toBe(plan);
    expect(later.sentences).toEqual(plan.sentences);
  });

  it('keeps a bounded number of plans', () => {
    const p = new Planner(library, 5000);
    const first = p.planOf(request({ text: 'Sentence 0.' }), 0);
    for (let i = 1; i <= 100; i++) p.planOf(request({ text: `Sentence ${i}.` }), i);
    expect(p.planOf(request({ text: 'Sentence 0.' }), 101)).not.toBe(first);
    const recent = p.planOf(request({ text: 'Sentence 100.' }), 102);
    expect(p.planOf(request({ text: 'Sentence 100.' }), 103)).toBe(recent);
  });

  it('refuses timings where neither the engine nor eSpeak NG can time the words', () => {
    const remote = new VoiceLibrary(createLocalEngines({}));
    remote.remote.set(
      'openai',
      new OpenAIEngine({ url: 'http://127.0.0.1:9', key: 'k', voices: [{ id: 'alloy', languages: ['qaa'] }] }),
    );
    remote.read();
    const p = new Planner(remote, 5000);
    const voice = remote.list({ engine: 'openai' })[0]!;
    expect(() =>
      p.planOf({ text: 'nuqneH', voice, language: 'qaa', format: 'mp3', checkLanguage: false, timings: true }),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', params: expect.objectContaining({ field: 'voice_id' }) }));
    const plain = p.planOf({ text: 'nuqneH', voice, language: 'qaa', format: 'mp3', checkLanguage: false });
    expect(p.timeable(plain)).toBe(false);
    expect(planner.timeable(planner.planOf(request()))).toBe(true);
  });
});

describe('the audio cache (speech/content-cache.ts)', () => {
  it('keys by what the audio is made of, the configured rate included', () => {
    const cache = new ContentCache(new MemoryAudioCache(), 24_000);
    const plan = planner.planOf(request());
    expect(cache.keyOf(plan)).toBe(cache.keyOf(planner.planOf(request())));
    expect(cache.keyOf(plan)).not.toBe(cache.keyOf(planner.planOf(request({ format: 'wav' }))));
    expect(cache.keyOf(plan)).not.toBe(new ContentCache(undefined, 16_000).keyOf(plan));
  });

  it('reads and fills it, but never for a reference sample, timings or the warm-up', async () => {
    const store = new MemoryAudioCache();
    const cache = new ContentCache(store, 24_000);
    const audio = { audio: Buffer.from([1, 2, 3]), durationSec: 1, sampleRate: 24_000 };
    const req = request();
    const plan = planner.planOf(req);
    const key = cache.keyOf(plan);
    await cache.set(req, plan, key, audio);
    expect(await cache.get(req, plan, key)).toEqual(audio);
    expect(await cache.get(request({ timings: true }), plan, key)).toBeUndefined();
    const warm = request();
    cache.skip(warm);
    expect(await cache.get(warm, plan, key)).toBeUndefined();
    await cache.set(warm, plan, 'other', audio);
    expect(await store.get('other')).toBeUndefined();
    const referenced = { ...plan, reference: { samples: new Float32Array(1), sampleRate: 16_000 } } as typeof plan;
    await cache.set(req, referenced, 'ref', audio);
    expect(await store.get('ref')).toBeUndefined();
    expect(await new ContentCache(undefined, 24_000).get(req, plan, key)).toBeUndefined();
  });
});

describe('the watermark of a content (speech/marking.ts)', () => {
  it('is a keyed 32-bit payload of the content key, none without a key', () => {
    const key = new Uint8Array(32).fill(7);
    const expected = createHmac('sha256', key).update('payload:abc').digest().readUInt32BE(0);
    expect(payloadOf(key, 'abc')).toBe(expected);
    expect(marker(key)('abc')).toEqual({ key, payload: expected });
    expect(marker(key)('abd')!.payload).not.toBe(expected);
    expect(payloadOf(new Uint8Array(32).fill(8), 'abc')).not.toBe(expected);
    expect(marker(undefined)('abc')).toBeUndefined();
  });
});

describe('the learnt loudness gains (speech/gains.ts)', () => {
  it("takes a voice's first gain, then moves a quarter of the way to each next one; nothing learns from no gain", () => {
    const gains = new GainMemory();
    const plan = planner.planOf(request());
    const other = planner.planOf(request({ pitch: 2 }));
    expect(gains.get(plan)).toBeUndefined();
    gains.learn(plan, 4);
    gains.learn(plan, undefined);
    gains.learn(plan, Number.NaN);
    expect(gains.get(plan)).toBe(4);
    gains.learn(plan, 8);
    expect(gains.get(plan)).toBe(4 + GAIN_SMOOTHING * 4);
    expect(gains.get(other)).toBeUndefined();
    // The same voice at another speed is another entry.
    expect(gains.get(planner.planOf(request({ speed: 1.5 })))).toBeUndefined();
  });
});

describe('the threads (speech/threads.ts)', () => {
  it('starts no pool until it is used, and a warm-up stopped by its signal rejects with its reason and leaves no thread', async () => {
    const threads = new SpeechThreads({ size: 1 });
    expect(threads.running).toBeUndefined();
    const stop = new AbortController();
    const reason = new Error('shutting down');
    let more = false;
    const warm = threads.warmup(24_000, stop.signal, async () => {
      more = true;
    });
    expect(threads.running).toBeDefined();
    stop.abort(reason);
    await expect(warm).rejects.toBe(reason);
    expect(more).toBe(false);
    await threads.close();
  });

  it('refuses a warm-up whose signal is already aborted, before any thread starts', async () => {
    const threads = new SpeechThreads({ size: 1 });
    const reason = new Error('gone');
    await expect(threads.warmup(24_000, AbortSignal.abort(reason), async () => {})).rejects.toBe(reason);
    expect(threads.running).toBeUndefined();
    await threads.close();
  });
});
