import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { givePlan } from '../support/economy.js';
import { expectError } from '../support/errors.js';
import { FIXTURES, JFK_WAV, ffmpegMake, uploadSample } from '../support/design.js';
import { makeOperator } from '../support/operators.js';

const TEXT = 'A short sentence to say who made this.';

/** LJ Speech clips joined into one sample (16 kHz WAV). */
function ljSample(clips: number[]): Promise<Buffer> {
  const inputs = clips.flatMap((n) => ['-i', path.join(FIXTURES, `LJ001-000${n}.wav`)]);
  const filter = `${clips.map((_, i) => `[${i}:a]`).join('')}concat=n=${clips.length}:v=0:a=1`;
  return ffmpegMake([...inputs, '-filter_complex', filter, '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le'], 'wav');
}

/**
 * Protected voices and reports of misuse, end to end on one app: the operator protects a voice from a sample and a
 * matching clone sample is refused before anything is kept or charged; anyone reports a file (its provenance check
 * names the account, voice and request that made it), a link (a forged one refused) or a voice; the operator reviews,
 * rejects, takes down (the voice and its saved mixes answer 404 everywhere, owner and reporter told by mail), protects
 * and disables; reports per address are limited, and a body declared at 1 GB is refused before it is read.
 */
describe.each(DIALECTS)('protected voices and reports (%s)', (dialect) => {
  let t: TestApp;
  let op: Client;
  let owner: Client;
  let ownerId: string;
  const ownerEmail = `cloner-${dialect}@example.com`;

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', REPORTS_PER_HOUR: '12' } });
    op = (await makeOperator(t, 'support')).client;
    owner = new Client(t.url, 'zh-CN');
    await owner.anonymous();
    ownerId = (await signIn(owner, t.outbox, ownerEmail)).id;
    await givePlan(t, ownerId);
  });
  afterAll(async () => {
    await t.close();
  });

  const balance = () => t.ctx.credits.balance(ownerId);
  const mailsTo = async (to: string) => {
    const files = (await fs.readdir(t.outbox).catch(() => [])).filter((f) => f.endsWith('.eml')).sort();
    const out = [];
    for (const f of files) {
      const mail = await simpleParser(await fs.readFile(path.join(t.outbox, f)));
      if (mail.to && JSON.stringify(mail.to).includes(to)) out.push({ subject: mail.subject ?? '', text: mail.text ?? '' });
    }
    return out;
  };
  const audits = (action: string) => t.ctx.db.kysely.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  it('refuses a clone sample of a protected voice before keeping or charging anything; others pass', async () => {
    const form = new FormData();
    form.append('name', 'LJ (reader)');
    form.append('category', 'public_figure');
    form.append('reason', 'the reader asked');
    form.append('file', new Blob([new Uint8Array(await ljSample([1, 2]))], { type: 'audio/wav' }), 'lj.wav');
    const made = await op.post('/admin/api/protected-voices', form);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ name: 'LJ (reader)', category: 'public_figure', has_sample: true });
    expect((await audits('protected_voice.add')).map((a) => a.target_id)).toContain(made.body.id);
    expect((await op.get('/admin/api/protected-voices')).body.items.map((v: { id: string }) => v.id)).toContain(made.body.id);

    const before = await balance();
    // Other sentences of the same speaker: the voice, not the recording, is what matches.
    const refused = expectError(await uploadSample(owner, await ljSample([3, 4, 5]), 'lj-other.wav'), 'VOICE_PROTECTED');
    expect(refused.message).toBe('该样本与受保护的声音相符，不能克隆');
    expect((await owner.get('/files?type=clone')).body.total).toBe(0);
    expect(await balance()).toBe(before);
    // Another speaker is cloned as before.
    expect((await uploadSample(owner, await fs.readFile(JFK_WAV), 'jfk.wav')).status).toBe(201);

    // A sample uploaded before its voice was protected is refused at the preview, before the fee.
    const jfk = (await owner.get('/files?type=clone')).body.items[0];
    const jfkProtected = new FormData();
    jfkProtected.append('name', 'JFK');
    jfkProtected.append('category', 'public_figure');
    jfkProtected.append('reason', 'public figure');
    jfkProtected.append('file', new Blob([new Uint8Array(await fs.readFile(JFK_WAV))], { type: 'audio/wav' }), 'jfk.wav');
    const second = await op.post('/admin/api/protected-voices', jfkProtected);
    expect(second.status).toBe(201);
    const preview = await owner.post('/voice/previews', {
      type: 'clone',
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      file_id: jfk.id,
    });
    expectError(preview, 'VOICE_PROTECTED');
    expect(await balance()).toBe(before);
    // Removed from the list (audited, with its reason): the sample clones again.
    expect((await op.delete(`/admin/api/protected-voices/${second.body.id}?reason=mistake`)).status).toBe(204);
    expect((await audits('protected_voice.remove')).at(-1)).toMatchObject({ target_id: second.body.id, reason: 'mistake' });
  });

  it('takes a report of a file, with its provenance; the operator takes the voice down everywhere and both sides hear', async () => {
    // The owner's clone voice, a mix made with it, and a file it spoke.
    const sample = (await owner.get('/files?type=clone')).body.items[0];
    const preview = await owner.post('/voice/previews', {
      type: 'clone',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      file_id: sample.id,
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(201);
    const voice = (await owner.put('/voice', { type: 'clone', name: 'Cloned', preview_id: preview.body.id })).body;
    const mix = await owner.put('/voice', {
      type: 'mix',
      name: 'Blend',
      model: 'espeak-ng',
      mix: [
        { voice_id: voice.id, weight: 1 },
        { voice_id: 'voice_espeak.en-us', weight: 1 },
      ],
    });
    expect(mix.status, JSON.stringify(mix.body)).toBe(201);
    // …and a mix of that mix, which keeps its blend too.
    const nested = await owner.put('/voice', {
      type: 'mix',
      name: 'Blend of a blend',
      model: 'espeak-ng',
      mix: [
        { voice_id: mix.body.id, weight: 1 },
        { voice_id: 'voice_espeak.en-us~f4', weight: 1 },
      ],
    });
    expect(nested.status, JSON.stringify(nested.body)).toBe(201);
    const spoken = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'x-sid': owner.sid!, 'content-type': 'application/json', 'x-request-id': 'req_reported1' },
      body: JSON.stringify({ text: TEXT, voice_id: voice.id, format: 'mp3' }),
    });
    expect(spoken.status).toBe(200);
    const file = Buffer.from(await spoken.arrayBuffer());

    const reporter = new Client(t.url, 'zh-TW');
    const form = new FormData();
    form.append('reason', 'impersonation');
    form.append('details', 'This is my voice.');
    form.append('contact', 'victim@example.com');
    form.append('consent', 'true');
    form.append('file', new Blob([new Uint8Array(file)], { type: 'audio/mpeg' }), 'heard.mp3');
    const made = await reporter.post('/reports', form);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.id).toMatch(/^rpt_/);

    const queue = await op.get('/admin/api/reports?status=new');
    const report = queue.body.items.find((r: { id: string }) => r.id === made.body.id);
    expect(report).toMatchObject({
      reason: 'impersonation',
      contact: 'victim@example.com',
      consent: true,
      has_file: true,
      account_id: ownerId,
      voice: { id: voice.id, account_id: ownerId, taken_down: false },
      provenance: { ai_generated: true },
    });
    expect(report.provenance.records[0]).toMatchObject({ account_id: ownerId, voice_id: voice.id, request_id: 'req_reported1' });
    const stored = await fetch(new URL(`/admin/api/reports/${made.body.id}/audio`, t.url), { headers: { 'x-sid': op.sid! } });
    expect(Buffer.from(await stored.arrayBuffer()).equals(file)).toBe(true);

    // The account's page in the console lists the reports about it.
    const page = await op.get(`/admin/api/accounts/${ownerId}`);
    expect(page.body.reports).toContainEqual(
      expect.objectContaining({ id: made.body.id, status: 'new', reason: 'impersonation', voice_id: voice.id }),
    );
    const stranger = await op.get(`/admin/api/accounts/${(await op.get('/accounts/me')).body.id}`);
    expect(stranger.body.reports).toEqual([]);

    expect((await op.post(`/admin/api/reports/${made.body.id}/review`, { reason: 'looking' })).body.status).toBe('in_review');
    const down = await op.post(`/admin/api/reports/${made.body.id}/takedown`, { reason: 'impersonation confirmed' });
    expect(down.status, JSON.stringify(down.body)).toBe(200);
    expect(down.body).toMatchObject({ status: 'actioned', voice: { taken_down: true }, outcome: { action: 'takedown' } });

    // 404 on every route, and in the saved mix.
    for (const id of [voice.id, mix.body.id, nested.body.id]) {
      expectError(await owner.get(`/voice?id=${id}`), 'NOT_FOUND');
      expectError(await owner.post('/tts', { text: TEXT, voice_id: id }), 'NOT_FOUND');
      expect((await owner.get(`/voice/preview/${id}.mp3`)).status).toBe(404);
    }
    expect((await owner.get('/voice?source=mine')).body.items).toEqual([]);
    expectError(await owner.request('PATCH', '/voice', { id: voice.id, name: 'Renamed' }), 'NOT_FOUND');
    // Its sample is protected now: it cannot be cloned again.
    expectError(await uploadSample(owner, await fs.readFile(JFK_WAV), 'jfk.wav'), 'VOICE_PROTECTED');
    const entry = (await audits('voice.takedown')).at(-1)!;
    expect(entry).toMatchObject({ target_id: voice.id, reason: 'impersonation confirmed' });
    expect(JSON.parse(entry.after!).voices).toEqual(expect.arrayContaining([voice.id, mix.body.id, nested.body.id]));

    // The owner hears of the voice, and of each saved mix taken down with it.
    const ownerMails = (await mailsTo(ownerEmail)).map((m) => m.text);
    for (const id of [voice.id, mix.body.id, nested.body.id])
      expect(ownerMails.filter((text) => text.includes(`(${id}) was taken down`))).toHaveLength(1);
    const told = (await mailsTo('victim@example.com')).at(-1)!;
    expect(told.subject).toBe('你向 Polyvox 提交的檢舉');
    expect(told.text).toContain(made.body.id);
  });

  it('reports a voice or a link; a forged link, a missing field, 1 GB and a flood are refused; reject, protect and disable', async () => {
    const reporter = new Client(t.url, 'en');
    let sent = 1; // the report of the test before
    const report = (body: unknown) => {
      sent++;
      return reporter.post('/reports', body);
    };
    const base = { reason: 'fraud', contact: 'someone@example.com', consent: true };
    expectError(await report({ ...base, url: 'https://evil.example/files/x/audio' }), 'VALIDATION_FAILED');
    expectError(await report({ ...base, url: '/voice/preview/voice_nothing.mp3' }), 'NOT_FOUND');
    expectError(await report({ reason: 'fraud', contact: 'someone@example.com' }), 'PARAMETERS_NEEDED');
    expectError(await report({ ...base, voice_id: 'voice_espeak.en-us', contact: 'not-an-email' }), 'VALIDATION_FAILED');
    expectError(await report({ ...base, voice_id: 'voice_none' }), 'NOT_FOUND');

    // A link to one of our files (the library's preview) is checked like an upload; rejected, the reporter is told.
    const linked = await report({ ...base, url: '/voice/preview/voice_espeak.en-us.mp3' });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    const rejected = await op.post(`/admin/api/reports/${linked.body.id}/reject`, { reason: 'our own library voice' });
    expect(rejected.body).toMatchObject({ status: 'rejected', has_file: true, provenance: { ai_generated: true } });
    expect((await mailsTo('someone@example.com')).at(-1)!.text).toContain('no action was taken');
    expect((await audits('report.reject')).at(-1)).toMatchObject({ target_id: linked.body.id, reason: 'our own library voice' });

    // An abuser's clone voice (of a synthetic speaker), reported by id: protected from its sample, then its account disabled.
    const abuser = new Client(t.url);
    await abuser.anonymous();
    const abuserId = (await signIn(abuser, t.outbox, `abuser-${dialect}@example.com`)).id;
    await givePlan(t, abuserId);
    const long = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'x-sid': abuser.sid!, 'content-type': 'application/json' },
      body: JSON.stringify({ text: `${TEXT} ${TEXT} ${TEXT} ${TEXT} ${TEXT}`, voice_id: 'voice_gnuspeech.male', format: 'wav' }),
    });
    const sample = await uploadSample(abuser, Buffer.from(await long.arrayBuffer()), 'made.wav');
    expect(sample.status, JSON.stringify(sample.body)).toBe(201);
    const preview = await abuser.post('/voice/previews', {
      type: 'clone',
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      file_id: sample.body.id,
    });
    const voice = (await abuser.put('/voice', { type: 'clone', name: 'Fake', preview_id: preview.body.id })).body;
    const byVoice = await report({ ...base, reason: 'harassment', voice_id: voice.id, consent: false });
    expect(byVoice.status).toBe(201);
    expect((await op.get(`/admin/api/reports/${byVoice.body.id}`)).body).toMatchObject({
      voice_id: voice.id,
      account_id: abuserId,
      has_file: false,
    });
    const guarded = await op.post(`/admin/api/reports/${byVoice.body.id}/protect`, { reason: 'keep it out', name: 'Fake' });
    expect(guarded.body).toMatchObject({ status: 'actioned', outcome: { action: 'protect' } });
    expect((await audits('protected_voice.add')).at(-1)).toMatchObject({ reason: 'keep it out' });
    expectError(
      await uploadSample(
        abuser,
        await (async () =>
          (
            await fetch(new URL('/tts', t.url), {
              method: 'POST',
              headers: { 'x-sid': abuser.sid!, 'content-type': 'application/json' },
              body: JSON.stringify({
                text: `${TEXT} ${TEXT} ${TEXT} ${TEXT} ${TEXT} ${TEXT}`,
                voice_id: 'voice_gnuspeech.male',
                format: 'wav',
              }),
            })
          ).arrayBuffer())().then((b) => Buffer.from(b)),
        'again.wav',
      ),
      'VOICE_PROTECTED',
    );
    const disabled = await op.post(`/admin/api/reports/${byVoice.body.id}/disable-account`, { reason: 'repeated abuse' });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expectError(await abuser.get('/accounts/me'), 'ACCOUNT_DISABLED');
    const entry = (await audits('account.disable')).at(-1)!;
    expect(entry).toMatchObject({ target_id: abuserId, reason: 'repeated abuse' });
    expect(JSON.parse(entry.after!).report_id).toBe(byVoice.body.id);
    // No consent, no mail about it.
    expect((await mailsTo('someone@example.com')).filter((m) => m.text.includes(byVoice.body.id))).toEqual([]);

    // A body declared at 1 GB is answered 413 before it is read (the connection closes).
    sent++;
    const huge = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(new URL('/reports', t.url), {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(1024 ** 3) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode!, connection: res.headers.connection });
        req.destroy();
      });
      req.on('error', reject);
      req.write(Buffer.alloc(64 * 1024));
    });
    expect(huge).toEqual({ status: 413, connection: 'close' });

    // The flood: past REPORTS_PER_HOUR from one address, 429 with retry-after.
    while (sent < 12) expect((await report({ ...base, voice_id: 'voice_espeak.en-us' })).status).toBe(201);
    const flood = await report({ ...base, voice_id: 'voice_espeak.en-us' });
    expectError(flood, 'RATE_LIMITED');
    expect(Number(flood.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
