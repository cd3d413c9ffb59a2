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

describe('/readyz fields a role adds', () => {
  it('agree with the checks of the same answer when a part comes up while the others still run', async () => {
    const { default: Fastify } = await import('fastify');
    const { operationsRoutes } = await import('../../src/http/operations.js');
    let started = false;
    const r = new Readiness(1000);
    r.add('speech', async () => {
      if (!started) throw new Error('speech engines are not taking work');
    });
    // A slower part: the engines come up while it is still being checked.
    r.add('database', () => new Promise((resolve) => setTimeout(() => ((started = true), resolve(undefined)), 20)));
    const app = Fastify();
    await app.register(
      operationsRoutes({
        db: {} as never,
        readiness: r,
        role: 'worker',
        status: (report) => ({ taking_work: report?.checks.speech?.ok ?? started }),
      }),
    );
    const first = await app.inject('/readyz');
    expect(started).toBe(true);
    expect(first.statusCode).toBe(503);
    expect(first.json()).toMatchObject({ taking_work: false, failed: ['speech'], checks: { speech: { ok: false } } });
    const second = await app.inject('/readyz');
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ taking_work: true, checks: { speech: { ok: true } } });
    await app.close();
  });
});
