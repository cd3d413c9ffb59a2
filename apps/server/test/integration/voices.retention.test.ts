import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { givePlan } from '../support/economy.js';
import { expectError } from '../support/errors.js';
import { JFK_WAV, uploadSample } from '../support/design.js';
import { makeOperator } from '../support/operators.js';
import { ClonedVoices } from '../../src/account-admin/cloned-voices.js';

const TEXT = 'A short sentence to say who made this.';
const DAY = 86_400_000;

/**
 * Issue 31: the samples and consent records behind every cloned voice stay available to operators. A clone its owner
 * deletes is gone for the owner and every route, but its sample and consent stay on the account's page in the console
 * for the retention the operator sets (VOICE_RETENTION_DAYS), each opening audited with a reason; then they are swept.
 */
describe.each(DIALECTS)('a deleted clone’s sample and consent kept for the operator (%s)', (dialect) => {
  let t: TestApp;
  let op: Client;
  let opId: string;
  let owner: Client;
  let ownerId: string;

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    const made = await makeOperator(t, 'support');
    op = made.client;
    opId = (await op.get('/accounts/me')).body.id as string;
    owner = new Client(t.url, 'en');
    await owner.anonymous();
    ownerId = (await signIn(owner, t.outbox, `keeper-${dialect}@example.com`)).id;
    await givePlan(t, ownerId);
  });
  afterAll(async () => {
    await t.close();
  });

  const audits = () =>
    t.ctx.db.kysely.selectFrom('audit_log').selectAll().where('action', '=', 'voice_sample.access').orderBy('at').execute();
  const sampleUrl = (voiceId: string, query: string) => `/admin/api/accounts/${ownerId}/cloned-voices/${voiceId}/sample${query}`;
  const fetchSample = (voiceId: string, query: string) =>
    fetch(new URL(sampleUrl(voiceId, query), t.url), { headers: { 'x-sid': op.sid! } });

  it('gone for the owner and every route; kept with its consent for the operator, each opening audited', async () => {
    const uploaded = await fs.readFile(JFK_WAV);
    const sample = await uploadSample(owner, uploaded, 'jfk.wav');
    expect(sample.status, JSON.stringify(sample.body)).toBe(201);
    const preview = await owner.post('/voice/previews', {
      type: 'clone',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      file_id: sample.body.id,
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(201);
    const voice = (await owner.put('/voice', { type: 'clone', name: 'Mine', preview_id: preview.body.id })).body;
    const listed = await op.get(`/admin/api/accounts/${ownerId}/cloned-voices`);
    expect(listed.body.items).toEqual([
      expect.objectContaining({
        id: voice.id,
        status: 'active',
        deleted_at: null,
        sample: expect.objectContaining({ id: sample.body.id }),
      }),
    ]);

    expect((await owner.delete(`/voice?id=${voice.id}`)).status).toBe(204);
    // Gone for the owner, on every route.
    expectError(await owner.get(`/voice?id=${voice.id}`), 'NOT_FOUND');
    expectError(await owner.post('/tts', { text: TEXT, voice_id: voice.id }), 'NOT_FOUND');
    expect((await owner.get(`/voice/preview/${voice.id}.mp3`)).status).toBe(404);
    expect((await owner.get('/files?type=clone')).body.total).toBe(0);
    expect((await owner.get('/voice?source=mine')).body.items).toEqual([]);
    // Nor mixed into a new voice, nor previewed as a mix.
    const mixed = await owner.put('/voice', {
      type: 'mix',
      name: 'With the deleted one',
      model: 'espeak-ng',
      mix: [
        { voice_id: voice.id, weight: 1 },
        { voice_id: 'voice_espeak.en-us', weight: 1 },
      ],
    });
    expectError(mixed, 'NOT_FOUND');
    const mixPreview = await owner.post('/voice/previews', {
      type: 'mix',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      mix: [
        { voice_id: voice.id, weight: 1 },
        { voice_id: 'voice_espeak.en-us', weight: 1 },
      ],
    });
    expectError(mixPreview, 'NOT_FOUND');

    // Kept for the operator: the voice, its sample's facts and the consent given with it, and when it goes.
    const kept = await op.get(`/admin/api/accounts/${ownerId}/cloned-voices`);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.retention_days).toBe(365);
    const item = kept.body.items[0];
    expect(item).toMatchObject({ id: voice.id, name: 'Mine', status: 'deleted', model: 'espeak-ng' });
    expect(item.sample).toMatchObject({
      id: sample.body.id,
      format: 'wav',
      size: uploaded.length,
      consent_ip: expect.any(String),
      consent_at: expect.any(String),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(Date.parse(item.purge_after) - Date.parse(item.deleted_at)).toBe(365 * DAY);

    // Opening the sample needs a reason, and each opening is audited: who, what, when, why.
    expectError(await op.get(sampleUrl(voice.id, '')), 'PARAMETERS_NEEDED');
    expect(await audits()).toEqual([]);
    const played = await fetchSample(voice.id, '?reason=report%20rpt_1%20asks');
    expect(played.status).toBe(200);
    expect(Buffer.from(await played.arrayBuffer()).equals(uploaded)).toBe(true);
    const saved = await fetchSample(voice.id, '?reason=police%20request&download=true');
    expect(saved.headers.get('content-disposition')).toContain('attachment');
    expect(Buffer.from(await saved.arrayBuffer()).equals(uploaded)).toBe(true);
    const trail = await audits();
    expect(trail.map((a) => [a.operator_id, a.target_id, a.reason])).toEqual([
      [opId, sample.body.id, 'report rpt_1 asks'],
      [opId, sample.body.id, 'police request'],
    ]);
    expect(JSON.parse(trail[0]!.after!)).toEqual({ account_id: ownerId, voice_id: voice.id, deleted: true });
    // Not another account's voice, nor a plain user.
    expectError(await op.get(`/admin/api/accounts/${opId}/cloned-voices/${voice.id}/sample?reason=x`), 'NOT_FOUND');
    expectError(await owner.get(sampleUrl(voice.id, '?reason=mine')), 'FORBIDDEN');
  });

  it('the operator sets the retention; past it the sweeper deletes the record and the sample file', async () => {
    const patched = await op.request('PATCH', '/admin/api/settings', { VOICE_RETENTION_DAYS: 30 });
    // Settings belong to the owner role: a support operator may not change them.
    expect(patched.status).toBe(403);
    const boss = await makeOperator(t, 'owner');
    expect((await boss.client.request('PATCH', '/admin/api/settings', { VOICE_RETENTION_DAYS: 30 })).status).toBe(200);
    await t.ctx.settings.refresh();
    const [row] = await t.ctx.db.kysely.selectFrom('retained_voices').selectAll().where('account_id', '=', ownerId).execute();
    expect(row).toBeDefined();
    expect(await t.ctx.storage.exists(row!.sample_key)).toBe(true);
    const clonedAt = (now: number) =>
      new ClonedVoices({
        db: t.ctx.db.kysely,
        storage: t.ctx.storage,
        audit: t.ctx.audit,
        retentionDays: () => t.ctx.settings.current().VOICE_RETENTION_DAYS,
        now: () => now,
      });
    const deletedAt = Date.parse(row!.deleted_at);
    // Day 29: kept. Day 31: gone, its file with it.
    expect(await clonedAt(deletedAt + 29 * DAY).sweep()).toBe(0);
    expect(await t.ctx.storage.exists(row!.sample_key)).toBe(true);
    expect(await clonedAt(deletedAt + 31 * DAY).sweep()).toBe(1);
    expect(await t.ctx.storage.exists(row!.sample_key)).toBe(false);
    expect((await op.get(`/admin/api/accounts/${ownerId}/cloned-voices`)).body.items).toEqual([]);
    expectError(await op.get(sampleUrl(row!.id, '?reason=late')), 'NOT_FOUND');
    await boss.client.request('PATCH', '/admin/api/settings', { VOICE_RETENTION_DAYS: 365 });
  });
});
