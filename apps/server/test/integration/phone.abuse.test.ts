import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startPeer, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { fakeTencentSms, type FakeSms } from '../support/sms.js';

/** Solves the server's proof-of-work as the console does, and encodes the payload it sends back. */
async function solved(c: Client): Promise<string> {
  const res = await c.get('/verification/challenge');
  expect(res.status).toBe(200);
  const challenge = res.body as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  expect(solution).not.toBeNull();
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

/** What the provider was asked to send, as the list of messages the old tests read from an outbox. */
const sentBy = (fake: FakeSms) => fake.sent.map((m) => ({ to: m.to, code: m.code }));

describe.each(DIALECTS)(
  'SMS pumping through Tencent Cloud SMS: proof-of-work, countries, limits, the daily cap (%s)',
  (dialect) => {
    let t: TestApp;
    let fake: FakeSms;
    const smsIn = () => Promise.resolve(sentBy(fake));
    let n = 0;
    const fresh = () => `+86137${String((dialect === 'sqlite' ? 10_000_000 : 50_000_000) + ++n)}`;
    const settle = async (patch: Parameters<TestApp['ctx']['settings']['update']>[0]) => {
      await t.ctx.settings.update(patch, 'test');
      await t.ctx.settings.refresh();
    };

    beforeAll(async () => {
      // The app sends through the Tencent Cloud SDK to a local fake that checks every request's TC3 signature.
      fake = await fakeTencentSms('AKIDphone', 'phone-secret');
      t = await startTestApp(dialect, {
        env: {
          SMS_URL: `tencent://AKIDphone:phone-secret@${fake.host}?app=1400000000&sign=Polyvox&template=100&tls=off`,
          SMS_FREE_PER_IP_DAY: '2',
          SMS_POW_DIFFICULTY: '2',
          SMS_LIMIT_PER_IP_HOUR: '100000',
          SMS_DAILY_CAP: '100000',
          // The last test sends from addresses of its own (X-Forwarded-For).
          TRUST_PROXY: 'true',
        },
      });
    });
    afterAll(async () => {
      expect(fake.refused).toEqual([]);
      await t.close();
      await fake.close();
    });

    it('asks for a proof-of-work past the free allowance; one solution buys one message', async () => {
      const c = new Client(t.url, 'zh-CN');
      for (let i = 0; i < 2; i++) expect((await c.post('/verification/mobile', { mobile: fresh() })).status).toBe(200);
      const refused = await c.post('/verification/mobile', { mobile: fresh() });
      expectError(refused, 'CAPTCHA_INCORRECT');
      expect(refused.headers.get('x-challenge')).toBe('required');
      expectError(
        await c.post('/verification/mobile', { mobile: fresh(), challenge: 'bm90IGEgcGF5bG9hZA==' }),
        'CAPTCHA_INCORRECT',
      );

      const payload = await solved(c);
      const to = fresh();
      expect((await c.post('/verification/mobile', { mobile: to, challenge: payload })).status).toBe(200);
      expect((await smsIn()).filter((m) => m.to === to)).toHaveLength(1);
      // Replayed: refused, nothing sent.
      const again = fresh();
      expectError(await c.post('/verification/mobile', { mobile: again, challenge: payload }), 'CAPTCHA_INCORRECT');
      expect((await smsIn()).some((m) => m.to === again)).toBe(false);
      // A tampered challenge (an easier prefix) fails its signature.
      const forged = JSON.parse(Buffer.from(await solved(c), 'base64').toString()) as { challenge: Challenge };
      forged.challenge.parameters.keyPrefix = '0';
      const forgedPayload = Buffer.from(JSON.stringify(forged)).toString('base64');
      expectError(await c.post('/verification/mobile', { mobile: fresh(), challenge: forgedPayload }), 'CAPTCHA_INCORRECT');
    });

    it('refuses numbers of countries the operator does not serve, in the user language', async () => {
      await settle({ SMS_COUNTRIES: 'CN,HK', SMS_FREE_PER_IP_DAY: 100_000 });
      const c = new Client(t.url, 'zh-CN');
      const refused = expectError(await c.post('/verification/mobile', { mobile: '+12015550199' }), 'VALIDATION_FAILED');
      expect(refused.message).toContain('暂不支持该国家或地区的号码');
      expect((await smsIn()).some((m) => m.to === '+12015550199')).toBe(false);
      expect((await c.post('/verification/mobile', { mobile: '+85251234567' })).status).toBe(200);
      await settle({ SMS_COUNTRIES: '*' });
    });

    it('distinct numbers from one address: only the per-address limit is sent (bench/sms-pumping.ts: 1,000)', async () => {
      const before = (await smsIn()).length;
      await settle({ SMS_LIMIT_PER_IP_HOUR: 10 });
      const c = new Client(t.url, 'en');
      const statuses: Record<number, number> = {};
      for (let i = 0; i < 60; i++) {
        const res = await c.post('/verification/mobile', { mobile: fresh() });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
      const sent = (await smsIn()).length - before;
      // The earlier tests' messages (every one from this address, in this hour) count in the same window.
      expect(before).toBeGreaterThan(0);
      expect(sent).toBe(10 - before);
      expect(statuses[200] ?? 0).toBe(sent);
      expect(statuses[429]).toBe(60 - sent);
      await settle({ SMS_LIMIT_PER_IP_HOUR: 100_000 });
    });

    it('a message the provider refuses: 500, the code forgotten, nothing taken from the cap, asked again at once', async () => {
      const c = new Client(t.url, 'en');
      const to = fresh();
      const day = await t.ctx.smsGuard.sentOn();
      fake.failNext = 'LimitExceeded.PhoneNumberDailyLimit';
      expectError(await c.post('/verification/mobile', { mobile: to }), 'INTERNAL');
      expect(await t.ctx.smsGuard.sentOn()).toBe(day);
      // No cooldown was started by the code that never left.
      expect((await c.post('/verification/mobile', { mobile: to })).status).toBe(200);
      expect((await smsIn()).filter((m) => m.to === to)).toHaveLength(1);
      expect(await t.ctx.smsGuard.sentOn()).toBe(day + 1);
    });

    it('without Redis, the per-address limit holds across two processes (1,000 numbers, one address)', async () => {
      const peer = await startPeer(t);
      try {
        await settle({ SMS_LIMIT_PER_IP_HOUR: 10 });
        await peer.ctx.settings.refresh();
        expect(t.ctx.config.REDIS_URL).toBeUndefined();
        const from = { 'x-forwarded-for': dialect === 'sqlite' ? '198.51.100.7' : '198.51.100.8' };
        const a = new Client(t.url, 'en');
        const b = new Client(peer.url, 'en');
        const before = fake.sent.length;
        const statuses: Record<number, number> = {};
        // 1,000 distinct numbers, spread over both processes, 20 at a time.
        for (let round = 0; round < 50; round++) {
          const replies = await Promise.all(
            Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).post('/verification/mobile', { mobile: fresh() }, from)),
          );
          for (const r of replies) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        }
        expect(statuses).toEqual({ 200: 10, 429: 990 });
        expect(fake.sent.length - before).toBe(10);
      } finally {
        await peer.close();
        await settle({ SMS_LIMIT_PER_IP_HOUR: 100_000 });
      }
    });

    it('the daily cap holds across two processes sending at once', async () => {
      const peer = await startPeer(t);
      try {
        const already = await t.ctx.smsGuard.sentOn();
        await settle({ SMS_DAILY_CAP: already + 7 });
        await peer.ctx.settings.refresh();
        const a = new Client(t.url, 'zh-CN');
        const b = new Client(peer.url, 'zh-CN');
        const before = (await smsIn()).length;
        const replies = await Promise.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).post('/verification/mobile', { mobile: fresh() })),
        );
        const ok = replies.filter((r) => r.status === 200).length;
        expect(ok).toBe(7);
        for (const r of replies.filter((x) => x.status !== 200))
          expect(expectError(r, 'RATE_LIMITED').message).toContain('秒后重试');
        expect((await smsIn()).length - before).toBe(7);
        expect(await t.ctx.smsGuard.sentOn()).toBe(already + 7);
      } finally {
        await peer.close();
        await settle({ SMS_DAILY_CAP: 100_000 });
      }
    });
  },
);
