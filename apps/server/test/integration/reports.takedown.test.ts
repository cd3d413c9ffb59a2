import fs from 'node:fs/promises';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { givePlan } from '../support/economy.js';
import { expectError } from '../support/errors.js';
import { makeOperator } from '../support/operators.js';
import { eventually } from '../support/leave.js';

const TEXT = 'A short sentence to say who made this.';

/**
 * Issue 31: a takedown reaches every voice a report can name, not only accounts' clones: an official library voice
 * (withheld from the library: 404 on every route, gone from the list, from new mixes and from every account's saved
 * mixes, whose owners are mailed), and an account's designed or mixed voice (404 everywhere, its owner mailed).
 */
describe.each(DIALECTS)('takedown of every voice a report names (%s)', (dialect) => {
  let t: TestApp;
  let op: Client;
  let alice: Client;
  let bob: Client;
  const aliceEmail = `alice-td-${dialect}@example.com`;
  const bobEmail = `bob-td-${dialect}@example.com`;

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    op = (await makeOperator(t, 'support')).client;
    alice = new Client(t.url, 'en');
    await alice.anonymous();
    await givePlan(t, (await signIn(alice, t.outbox, aliceEmail)).id);
    bob = new Client(t.url, 'zh-CN');
    await bob.anonymous();
    await givePlan(t, (await signIn(bob, t.outbox, bobEmail)).id);
  });
  afterAll(async () => {
    await t.close();
  });

  const mailsTo = async (to: string) => {
    const files = (await fs.readdir(t.outbox).catch(() => [])).filter((f) => f.endsWith('.eml')).sort();
    const out = [];
    for (const f of files) {
      const mail = await simpleParser(await fs.readFile(path.join(t.outbox, f)));
      if (mail.to && JSON.stringify(mail.to).includes(to)) out.push({ subject: mail.subject ?? '', text: mail.text ?? '' });
    }
    return out;
  };
  const reportAndTakeDown = async (voiceId: string) => {
    const made = await new Client(t.url, 'en').post('/reports', {
      reason: 'impersonation',
      contact: 'victim@example.com',
      consent: false,
      voice_id: voiceId,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const down = await op.post(`/admin/api/reports/${made.body.id}/takedown`, { reason: 'confirmed' });
    expect(down.status, JSON.stringify(down.body)).toBe(200);
    expect(down.body).toMatchObject({ status: 'actioned', outcome: { action: 'takedown' } });
    return made.body.id as string;
  };
  const mix = (who: Client, name: string, voices: string[]) =>
    who.put('/voice', { type: 'mix', name, model: 'espeak-ng', mix: voices.map((voice_id) => ({ voice_id, weight: 1 })) });
  const gone = async (who: Client, id: string) => {
    expectError(await who.get(`/voice?id=${id}`), 'NOT_FOUND');
    expectError(await who.post('/tts', { text: TEXT, voice_id: id }), 'NOT_FOUND');
    expectError(await who.post('/tts/jobs', { text: TEXT, voice_id: id }), 'NOT_FOUND');
    expect((await who.get(`/voice/preview/${id}.mp3`)).status).toBe(404);
  };

  it('an official library voice: withheld everywhere, every saved mix with it taken down and its owner mailed', async () => {
    const LIST = '/voice?source=official&model=espeak-ng&languages=en-US&page_size=100';
    const listed = (await alice.get(LIST)).body;
    const target = (listed.items as { id: string }[])
      .map((v) => v.id)
      .find((id) => id.startsWith('voice_espeak.en-us~') && !id.endsWith('~f4'))!;
    expect(target).toBeDefined();
    expect((await alice.post('/tts', { text: TEXT, voice_id: target, format: 'mp3' })).status).toBe(200);
    // Alice's mix with it, a mix of that mix, and Bob's own mix with it; and a mix without it, which stays.
    const aliceMix = await mix(alice, 'With it', [target, 'voice_espeak.en-us']);
    expect(aliceMix.status, JSON.stringify(aliceMix.body)).toBe(201);
    const nested = await mix(alice, 'Of the mix', [aliceMix.body.id, 'voice_espeak.en-us~f4']);
    expect(nested.status, JSON.stringify(nested.body)).toBe(201);
    const bobMix = await mix(bob, 'Bob’s', ['voice_espeak.en-us~f4', target]);
    expect(bobMix.status, JSON.stringify(bobMix.body)).toBe(201);
    const kept = await mix(bob, 'Unrelated', ['voice_espeak.en-us', 'voice_espeak.en-us~f4']);
    expect(kept.status, JSON.stringify(kept.body)).toBe(201);

    const reportId = await reportAndTakeDown(target);

    await gone(alice, target);
    const after = (await alice.get(LIST)).body;
    expect((after.items as { id: string }[]).map((v) => v.id)).not.toContain(target);
    expect(after.total).toBe(listed.total - 1);
    expectError(await mix(alice, 'Again', [target, 'voice_espeak.en-us']), 'NOT_FOUND');
    for (const [who, id] of [
      [alice, aliceMix.body.id],
      [alice, nested.body.id],
      [bob, bobMix.body.id],
    ] as const)
      await gone(who, id);
    expect((await bob.post('/tts', { text: TEXT, voice_id: kept.body.id, format: 'mp3' })).status).toBe(200);
    // A report of it now finds nothing to report.
    expectError(
      await new Client(t.url, 'en').post('/reports', {
        reason: 'fraud',
        contact: 'a@example.com',
        consent: false,
        voice_id: target,
      }),
      'NOT_FOUND',
    );

    const entry = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'voice.takedown')
      .where('target_id', '=', target)
      .executeTakeFirstOrThrow();
    expect(entry.reason).toBe('confirmed');
    const facts = JSON.parse(entry.after!) as { official: boolean; report_id: string; voices: string[] };
    expect(facts).toMatchObject({ official: true, report_id: reportId });
    expect([...facts.voices].sort()).toEqual([target, aliceMix.body.id, nested.body.id, bobMix.body.id].sort());
    // The owners of the mixes hear of it, each in the three languages.
    const aliceMails = (await mailsTo(aliceEmail)).filter((m) => m.subject.startsWith('Your Polyvox mix was taken down'));
    expect(aliceMails.map((m) => m.text.includes(aliceMix.body.id) || m.text.includes(nested.body.id))).toEqual([true, true]);
    expect((await mailsTo(bobEmail)).at(-1)!.text).toContain(`（${bobMix.body.id}）已下架`);
  });

  it('an account’s designed voice and a saved mix of its own: 404 everywhere, the owner mailed', async () => {
    const preview = await alice.post('/voice/previews', {
      type: 'prompt',
      model: 'flite',
      language: 'en',
      preview_text: 'Hello there.',
      prompt: 'a calm low voice for bedtime stories',
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(201);
    const designed = await alice.put('/voice', { type: 'prompt', name: 'Designed', preview_id: preview.body.id });
    expect(designed.status, JSON.stringify(designed.body)).toBe(201);
    const ownMix = await mix(alice, 'Plain blend', ['voice_espeak.en-us', 'voice_espeak.en-us~f4']);
    expect(ownMix.status, JSON.stringify(ownMix.body)).toBe(201);
    for (const id of [designed.body.id as string, ownMix.body.id as string]) {
      expect((await alice.post('/tts', { text: TEXT, voice_id: id, format: 'mp3' })).status).toBe(200);
      await reportAndTakeDown(id);
      await gone(alice, id);
      expect((await mailsTo(aliceEmail)).at(-1)!.text).toContain(`(${id}) was taken down`);
    }
    expect(((await alice.get('/voice?source=mine')).body.items as { id: string }[]).map((v) => v.id)).not.toContain(
      designed.body.id,
    );
  });

  it('the History items made with a voice taken down stay listed and marked, their audio served to no one', async () => {
    type Item = { history_item_id: string; voice_id: string | null; audio_available: boolean; voice_taken_down: boolean };
    const items = async () => (await alice.get('/v1/history?page_size=1000')).body.history as Item[];
    /** ElevenLabs-shaped routes answer the contract's error with their `detail` beside it. */
    const notFound = (res: { status: number; body: any }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    };
    const audio = (id: string) => fetch(new URL(`/v1/history/${id}/audio`, t.url), { headers: { 'x-sid': alice.sid! } });
    const voice = await mix(alice, 'Soon gone', ['voice_espeak.en-us', 'voice_espeak.en-us~f4']);
    expect(voice.status, JSON.stringify(voice.body)).toBe(201);
    const id = voice.body.id as string;
    const before = (await items()).length;
    expect((await alice.post('/tts', { text: TEXT, voice_id: id, format: 'mp3' })).status).toBe(200);
    expect((await alice.post('/tts', { text: TEXT, voice_id: 'voice_espeak.en-us', format: 'mp3' })).status).toBe(200);
    // A dialogue with the voice in one turn.
    const dialogue = await alice.post('/v1/text-to-dialogue', {
      inputs: [
        { text: 'Hello there.', voice_id: 'voice_espeak.en-us' },
        { text: 'Hi back.', voice_id: id },
      ],
    });
    expect(dialogue.status, JSON.stringify(dialogue.body)).toBe(200);
    let listed: Item[] = [];
    expect(await eventually(async () => (listed = await items()).length === before + 3)).toBe(true);
    const [withDialogue, plain, withVoice] = listed.slice(0, 3);
    expect(withVoice!.voice_id).toBe(id);
    expect(plain!.voice_id).toBe('voice_espeak.en-us');
    expect(withDialogue!.voice_id).toBeNull();
    for (const item of [withDialogue!, plain!, withVoice!]) {
      expect(item).toMatchObject({ audio_available: true, voice_taken_down: false });
      expect((await audio(item.history_item_id)).status).toBe(200);
    }

    await reportAndTakeDown(id);
    const after = new Map((await items()).map((i) => [i.history_item_id, i]));
    // Still listed (made before the takedown), marked, and no longer playable or downloadable by anyone.
    for (const item of [withVoice!, withDialogue!]) {
      expect(after.get(item.history_item_id)).toMatchObject({ audio_available: false, voice_taken_down: true });
      expect((await alice.get(`/v1/history/${item.history_item_id}`)).body).toMatchObject({ voice_taken_down: true });
      const res = await audio(item.history_item_id);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
      notFound(await alice.post('/v1/history/download', { history_item_ids: [item.history_item_id] }));
      notFound(await bob.get(`/v1/history/${item.history_item_id}/audio`));
    }
    notFound(
      await alice.post('/v1/history/download', { history_item_ids: [plain!.history_item_id, withVoice!.history_item_id] }),
    );
    // Audio made with other voices is untouched.
    expect(after.get(plain!.history_item_id)).toMatchObject({ audio_available: true, voice_taken_down: false });
    expect((await audio(plain!.history_item_id)).status).toBe(200);
    // Its owner may still delete the item.
    expect((await alice.delete(`/v1/history/${withVoice!.history_item_id}`)).status).toBeLessThan(300);
  });
});
