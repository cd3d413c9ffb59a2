import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { buildApp, type BuiltApp } from '../../src/app.js';
import type { Mailer } from '../../src/platform/mail.js';
import { PaymentsService } from '../../src/payments/service.js';
import { OrdersService } from '../../src/orders/service.js';
import { InvoicesService } from '../../src/invoices/service.js';
import { CodesService } from '../../src/codes/service.js';
import { AuthService } from '../../src/auth/service.js';
import { SynthesisService } from '../../src/synthesis/service.js';
import { SynthesisJobs } from '../../src/synthesis/jobs/service.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The services a worker must not build, by class. */
const NOT_IN_A_WORKER = { PaymentsService, OrdersService, InvoicesService, CodesService, AuthService } as const;

/**
 * Every object reachable from `root` through properties, array items, Map and Set entries (what a service holds,
 * and what those hold): a service built and handed to anything the process keeps is in it. Bytes are not walked.
 */
function reachable(root: object): Set<object> {
  const seen = new Set<object>();
  const todo: unknown[] = [root];
  while (todo.length) {
    const value = todo.pop();
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue;
    seen.add(value);
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) continue;
    if (value instanceof Map) for (const [k, v] of value) todo.push(k, v);
    if (value instanceof Set) for (const v of value) todo.push(v);
    for (const key of Reflect.ownKeys(value)) {
      const property = Object.getOwnPropertyDescriptor(value, key);
      if (property && 'value' in property) todo.push(property.value);
    }
  }
  return seen;
}

/** The classes of `NOT_IN_A_WORKER` with an instance among `objects`, and whether `mailer` is among them. */
function found(objects: Set<object>, mailer: Mailer): { services: string[]; mailer: boolean } {
  const services = Object.entries(NOT_IN_A_WORKER)
    .filter(([, type]) => [...objects].some((o) => o instanceof type))
    .map(([name]) => name);
  return { services, mailer: objects.has(mailer) };
}

/** A mailer of the test's own: the process it is given to keeps it wherever it builds mail. */
const outbox: string[] = [];
const mailer: Mailer = {
  async send(message) {
    outbox.push(message.to);
  },
  close() {},
};

describe.each(DIALECTS)('what each role builds (%s)', (dialect) => {
  let t: TestApp;
  let worker: Extract<BuiltApp, { role: 'worker' }>;

  beforeAll(async () => {
    // ROLE=all, with the mailer; then a worker on its database and a Redis of its own prefix, given the same mailer.
    t = await startTestApp(dialect, { mailer });
    const run = `polyvox-test-roles-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const built = await buildApp(
      { ...t.ctx.config, ROLE: 'worker', PORT: 0, REDIS_URL, REDIS_PREFIX: `${run}:`, QUEUE_PREFIX: run },
      { mailer },
    );
    if (built.role !== 'worker') throw new Error(`ROLE=worker built ${built.role}`);
    worker = built;
  });

  afterAll(async () => {
    await worker?.app.close();
    await t?.close();
  });

  it('builds payments, orders, receipts, codes and mail in a process that serves the API', () => {
    // The check itself sees them where they are built: it would see them in a worker too.
    expect(found(reachable(t.ctx), mailer)).toEqual({ services: Object.keys(NOT_IN_A_WORKER), mailer: true });
  });

  it('builds no payments, orders, receipts, codes or mail in a worker, only synthesis and its jobs', async () => {
    const objects = reachable(worker.ctx);
    expect(found(objects, mailer)).toEqual({ services: [], mailer: false });
    for (const name of ['payments', 'orders', 'invoices', 'codes', 'mailer', 'auth', 'phone', 'accounts', 'design'])
      expect(Object.keys(worker.ctx)).not.toContain(name);
    // What it serves is built: the synthesis service and the jobs the queue hands it.
    expect(worker.ctx.synthesis).toBeInstanceOf(SynthesisService);
    expect(worker.ctx.jobs).toBeInstanceOf(SynthesisJobs);
    // And it answers as a worker.
    await worker.app.ready();
    const res = await worker.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    // Takes work once its engines are up; closed only then (a worker closed while they start has nothing to take).
    for (;;) {
      const ready = await worker.app.inject({ method: 'GET', url: '/readyz' });
      if ((ready.json() as { taking_work?: boolean }).taking_work) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(outbox).toEqual([]);
    // Its engines start first: minutes on a loaded two-core machine.
  }, 300_000);
});
