import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/platform/db/schema.js';
import type { TestApp } from './app.js';
import { Client, signIn } from './client.js';

let n = 0;

/** A registered account's client, in `lang`. */
export async function buyer(t: TestApp, lang = 'en', label = 'buyer') {
  const client = new Client(t.url, lang);
  await client.anonymous();
  const account = await signIn(client, t.outbox, `${label}-${process.pid}-${++n}@example.com`);
  return { client, account };
}

export async function newOrder(client: Client, product = 'credits_100k') {
  const res = await client.post('/accounts/me/orders', { product });
  expect(res.status).toBe(201);
  return res.body as { id: string; amount: number; currency: string; status: string };
}

/** Starts a sandbox payment and returns its token. */
export async function sandboxToken(client: Client, orderId: string, returnUrl = '/#/app/orders') {
  const res = await client.post(`/accounts/me/orders/${orderId}/payment/sandbox?pf=web`, {
    pay_platform: 'web',
    return_url: returnUrl,
  });
  expect(res.status).toBe(200);
  return new URL(res.body.pay_url, 'http://x').searchParams.get('token')!;
}

export function complete(t: TestApp, orderId: string, body: unknown, contentType = 'application/json') {
  return fetch(new URL(`/pay/sandbox/${orderId}/complete`, t.url), {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    redirect: 'manual',
  });
}

/**
 * Puts an account on a plan until `days` from now (negative: a plan that has expired), as a settled
 * purchase of that plan would; for tests whose subject is not the purchase but what the plan allows.
 */
export async function givePlan(t: TestApp, accountId: string, level = 'monthly', days = 30) {
  await givePlanIn(t.ctx.db.kysely, accountId, level, days);
}

/** The same through any connection to the database (a test of server processes opens its own). */
export async function givePlanIn(db: Kysely<Database>, accountId: string, level = 'monthly', days = 30) {
  await db
    .updateTable('accounts')
    .set({ vip_level: level, vip_expire: new Date(Date.now() + days * 86_400_000).toISOString() })
    .where('id', '=', accountId)
    .execute();
}

/** A copy of the product file with each plan's privileges changed by `change`; returns its path. */
export async function productsWith(
  dir: string,
  change: (plan: string, privileges: { max_text_length: number; own_voices: number; api_access: boolean }) => void,
): Promise<string> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const source = path.resolve(import.meta.dirname, '../../config/products.json');
  const file = JSON.parse(await fs.readFile(source, 'utf8')) as {
    plans: { plan: string; privileges: { max_text_length: number; own_voices: number; api_access: boolean } }[];
  };
  for (const p of file.plans) change(p.plan, p.privileges);
  const out = path.join(dir, `products-${process.pid}-${++n}.json`);
  await fs.writeFile(out, JSON.stringify(file));
  return out;
}
