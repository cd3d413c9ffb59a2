import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { JFK_WAV, uploadSample } from '../support/design.js';

/** The console states the activation fee before it is charged: /tts/config names it, and it is what activation takes. */
describe.each(DIALECTS)('activation fees in /tts/config (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
    accountId = (await signIn(c, t.outbox, `fees-${dialect}@example.com`)).id;
    await givePlan(t, accountId); // saves more voices than the free plan's one
  });
  afterAll(async () => {
    await t.close();
  });

  it('names the credits configuration fees by usage type', async () => {
    const res = await c.get('/tts/config');
    expect(res.status).toBe(200);
    expect(res.body.activation_fees).toEqual(t.ctx.credits.config.activation_fees);
    expect(res.body.activation_fees.text_to_voice).toBeGreaterThan(0);
    expect(res.body.activation_fees.clone).toBeGreaterThan(0);
  });

  it('charges exactly the stated clone fee when a clone is activated', async () => {
    const fees = (await c.get('/tts/config')).body.activation_fees as { clone: number };
    const sample = await uploadSample(c, await fs.readFile(JFK_WAV), 'jfk.wav');
    expect(sample.status).toBe(201);
    const preview = await c.post('/voice/previews', {
      type: 'clone',
      model: 'espeak-ng',
      language: 'en',
      preview_text: 'A quick preview of this voice.',
      file_id: sample.body.id,
    });
    expect(preview.status).toBe(201);
    const before = await t.ctx.credits.balance(accountId);
    const voice = await c.put('/voice', { type: 'clone', name: 'Fee check', preview_id: preview.body.id });
    expect(voice.status).toBe(201);
    expect(await t.ctx.credits.balance(accountId)).toBe(before - fees.clone);
  });
});
