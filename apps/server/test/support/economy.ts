import { expect } from 'vitest';
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
