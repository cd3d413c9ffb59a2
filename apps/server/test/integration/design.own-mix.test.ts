/**
 * Mixing the account's own voices: a saved voice of a mixable model goes into a mix with its own
 * profile (not its base voice's); a voice of another model is refused; another account's voice is
 * not found, in a preview, a saved mix and a mix's change alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePcm, semitonesBetween } from '@polyvox/speech';
import { decodeWav } from '@polyvox/speech/formats';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

const TEXT = 'A quick preview of this voice, long enough to hear its pitch clearly.';
const LOW = 'voice_espeak.en-us';
const HIGH = 'voice_espeak.en-us~f4';

describe.each(DIALECTS)("mixing one's own voices (%s)", (dialect) => {
  let t: TestApp;
  let c: Client;
  let stranger: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
    // Several own voices are a subscriber's: the free plan keeps one.
    await givePlan(t, (await signIn(c, t.outbox, `mixer-${dialect}@example.com`)).id);
    stranger = new Client(t.url);
    await stranger.anonymous();
    await givePlan(t, (await signIn(stranger, t.outbox, `stranger-${dialect}@example.com`)).id);
  });
  afterAll(async () => {
    await t.close();
  });

  const f0 = async (client: Client, voice_id: string): Promise<number> => {
    const res = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'x-sid': client.sid!, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT, voice_id, format: 'wav' }),
    });
    expect(res.status).toBe(200);
    const pcm = decodeWav(Buffer.from(await res.arrayBuffer()));
    return measurePcm(pcm.samples, pcm.sampleRate).f0MedianHz;
  };
  const saveMix = (client: Client, name: string, mix: { voice_id: string; weight: number }[]) =>
    client.put('/voice', { type: 'mix', name, model: 'espeak-ng', mix });

  it('a saved mix is mixable and mixes again with its own profile, in a preview and a saved mix', async () => {
    // A low voice lifted halfway to a high one: its own pitch is neither parent's.
    const blend = await saveMix(c, 'Middle', [
      { voice_id: LOW, weight: 1.2 },
      { voice_id: HIGH, weight: 1 },
    ]);
    expect(blend.status).toBe(201);
    expect(blend.body.mixable).toBe(true);
    const mine = (await c.get('/voice?source=mine&mix=true')).body.items.map((v: { id: string }) => v.id);
    expect(mine).toContain(blend.body.id);

    const preview = await c.post('/voice/previews', {
      type: 'mix',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      mix: [
        { voice_id: blend.body.id, weight: 2 },
        { voice_id: 'voice_espeak.en-us~m3', weight: 1 },
      ],
    });
    expect(preview.status).toBe(201);

    // A mix of the saved voice alone speaks as it does, not as the library voice it is built on.
    const again = await saveMix(c, 'Middle again', [{ voice_id: blend.body.id, weight: 1 }]);
    expect(again.status).toBe(201);
    const [own, copy, low, high] = [await f0(c, blend.body.id), await f0(c, again.body.id), await f0(c, LOW), await f0(c, HIGH)];
    console.log(
      `F0: low ${low.toFixed(1)} Hz, high ${high.toFixed(1)} Hz, own mix ${own.toFixed(1)} Hz, its re-mix ${copy.toFixed(1)} Hz`,
    );
    expect(Math.abs(semitonesBetween(copy, own))).toBeLessThan(0.5);
    expect(Math.abs(semitonesBetween(copy, low))).toBeGreaterThan(1);
    expect(copy).toBeGreaterThan(low);
    expect(copy).toBeLessThan(high);

    // A mix's voices may change to include another of the account's voices.
    const changed = await c.request('PATCH', '/voice', {
      id: again.body.id,
      mix: [
        { voice_id: blend.body.id, weight: 1 },
        { voice_id: HIGH, weight: 1 },
      ],
    });
    expect(changed.status).toBe(200);
  });

  it("another account's voice answers 404 in a preview, a saved mix and a change of mix", async () => {
    const theirs = await saveMix(stranger, 'Theirs', [{ voice_id: LOW, weight: 1 }]);
    expect(theirs.status).toBe(201);
    const parts = [
      { voice_id: theirs.body.id, weight: 1 },
      { voice_id: HIGH, weight: 1 },
    ];
    const preview = await c.post('/voice/previews', {
      type: 'mix',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      mix: parts,
    });
    expect(preview.status).toBe(404);
    expect(preview.body.error.code).toBe('NOT_FOUND');
    expect((await saveMix(c, 'Stolen', parts)).status).toBe(404);
    const mine = await saveMix(c, 'Mine', [{ voice_id: HIGH, weight: 1 }]);
    expect((await c.request('PATCH', '/voice', { id: mine.body.id, mix: parts })).status).toBe(404);
    // Their voice is still theirs to mix.
    expect((await saveMix(stranger, 'Theirs again', parts)).status).toBe(201);
  });

  it("refuses one's own voice of another model (a designed voice on Flite) in an eSpeak mix", async () => {
    const prompt = await c.post('/voice/previews', {
      type: 'prompt',
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      prompt: 'a deep calm older man',
    });
    expect(prompt.status).toBe(201);
    const voice = await c.put('/voice', { type: 'prompt', name: 'Flite man', preview_id: prompt.body.id });
    expect(voice.status).toBe(201);
    expect(voice.body.mixable).toBe(false);
    const res = await saveMix(c, 'Across models', [
      { voice_id: voice.body.id, weight: 1 },
      { voice_id: HIGH, weight: 1 },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});
