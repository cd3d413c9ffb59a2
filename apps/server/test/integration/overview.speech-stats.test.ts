import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { makeOperator } from '../support/operators.js';
import { SpeechStatsRecorder } from '../../src/overview/speech-stats.js';

/**
 * The overview's speech routes over a date range: hourly counts every process adds to in the database, so two
 * processes' answers add up, a range leaves out other days, and a restart loses nothing.
 */
describe.each(DIALECTS)('the speech routes per date range, from every process (%s)', (dialect) => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof makeOperator>>;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    owner = await makeOperator(t, 'owner');
  });
  afterAll(async () => {
    await t.close();
  });

  it('adds up two processes over the range, leaves other days out, and keeps the counts across a restart', async () => {
    const db = t.ctx.db.kysely;
    // Two other processes (an API and a worker host, say), each with its own clock, add their counts on 2030-03-01/02.
    let atA = Date.parse('2030-03-01T10:15:00Z');
    let atB = Date.parse('2030-03-01T23:59:00Z');
    const a = new SpeechStatsRecorder(db, () => atA);
    const b = new SpeechStatsRecorder(db, () => atB);
    for (let i = 0; i < 60; i++) a.record(200, 0.03); // ≤ 0.05 s
    a.record(500, 0.2);
    a.record(422, 0.2);
    for (let i = 0; i < 36; i++) b.record(200, 0.2); // (0.1, 0.25]
    b.record(503, 3);
    b.record(400, 3); // (2.5, 5]
    await Promise.all([a.flush(), b.flush()]);
    // The same hour again from A (an upsert that adds), and the next day from both.
    atA = Date.parse('2030-03-01T10:45:00Z');
    a.record(200, 0.03);
    atA = atB = Date.parse('2030-03-02T08:00:00Z');
    a.record(500, 0.03);
    b.record(200, 0.03);
    await Promise.all([a.flush(), b.flush()]);

    const day1 = await owner.client.get('/admin/api/overview?from=2030-03-01&to=2030-03-01');
    expect(day1.status).toBe(200);
    // 62 + 38 + 1 = 101 requests; errors 500 and 503; refusals 422 and 400.
    expect(day1.body.speech).toMatchObject({
      requests: 101,
      server_errors: 2,
      client_errors: 2,
      scope: 'range',
      since: '2030-03-01T00:00:00.000Z',
    });
    expect(day1.body.speech.error_rate).toBeCloseTo(2 / 101, 9);
    // The 95.95th of 101 falls in (0.1, 0.25], which holds 38 above the 61 in (0, 0.05]: 0.1 + 0.15 × (95.95 − 61) / 38.
    expect(day1.body.speech.p95_seconds).toBeCloseTo(0.1 + (0.15 * (0.95 * 101 - 61)) / 38, 6);
    const both = await owner.client.get('/admin/api/overview?from=2030-03-01&to=2030-03-02');
    expect(both.body.speech).toMatchObject({ requests: 103, server_errors: 3, client_errors: 2 });
    const before = await owner.client.get('/admin/api/overview?from=2030-02-01&to=2030-02-28');
    expect(before.body.speech).toMatchObject({ requests: 0, server_errors: 0, error_rate: 0, p95_seconds: null });

    // This process: its speech routes' answers (refused here) are in today's range once the overview reads them.
    const today = new Date().toISOString().slice(0, 10);
    const stranger = new Client(t.url, 'en');
    for (let i = 0; i < 3; i++) expect((await stranger.post('/tts', { text: '' })).status).toBeGreaterThanOrEqual(400);
    await stranger.get('/healthz'); // not a speech route
    const now = await owner.client.get(`/admin/api/overview?from=${today}&to=${today}`);
    expect(now.body.speech).toMatchObject({ requests: 3, client_errors: 3, server_errors: 0 });

    // A restart (a new process on the same database) reads the same figures.
    t = await t.restart();
    const again = await owner.client.get(`/admin/api/overview?from=2030-03-01&to=2030-03-02`);
    expect(again.body.speech).toEqual(both.body.speech);
    const todayAgain = await owner.client.get(`/admin/api/overview?from=${today}&to=${today}`);
    expect(todayAgain.body.speech).toMatchObject({ requests: 3, client_errors: 3 });
  });
});
