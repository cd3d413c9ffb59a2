import { describe, expect, it } from 'vitest';
import { Readiness } from '../../src/platform/health.js';

describe('readiness checks', () => {
  it('is ready when every part answers', async () => {
    const r = new Readiness(500);
    r.add('database', () => Promise.resolve());
    r.add('storage', () => Promise.resolve());
    const report = await r.run();
    expect(report).toMatchObject({ ready: true, failed: [], checks: { database: { ok: true }, storage: { ok: true } } });
  });

  it('names each part that fails or never answers, with its error', async () => {
    const r = new Readiness(100);
    r.add('database', () => Promise.resolve());
    r.add('redis', () => Promise.reject(new Error('connect ECONNREFUSED')));
    r.add('queue', () => new Promise(() => {}));
    const report = await r.run();
    expect(report.ready).toBe(false);
    expect(report.failed).toEqual(['redis', 'queue']);
    expect(report.checks.redis).toMatchObject({ ok: false, error: 'connect ECONNREFUSED' });
    expect(report.checks.queue).toMatchObject({ ok: false, error: 'no answer within 100 ms' });
    expect(report.checks.database!.ok).toBe(true);
  });

  it('counts a check that throws at once as failed, not as an error of the whole run', async () => {
    const r = new Readiness(100);
    r.add('storage', () => {
      throw new Error('unsafe');
    });
    expect((await r.run()).failed).toEqual(['storage']);
  });
});
