import { Client } from './client.js';
import { startTestApp, type TestApp } from './app.js';

/** An app with one engine worker, an anonymous account granted `credits`, and an API key of it: what the SDK tests call with. */
export async function keyedApp(
  dialect: Parameters<typeof startTestApp>[0],
  credits: number,
  name: string,
  env: Record<string, string> = {},
): Promise<{ t: TestApp; c: Client; key: { id: string; key: string } }> {
  const t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', ...env } });
  const c = new Client(t.url);
  const { account } = await c.anonymous();
  await t.ctx.db.kysely
    .transaction()
    .execute((trx) => t.ctx.credits.grantOnce(trx, account.id, `test:${account.id}`, credits, 'test'));
  const key = (await c.put('/api/authorization', { name })).body as { id: string; key: string };
  return { t, c, key };
}

/** A raw POST to an ElevenLabs-shaped route with a key, for what the SDK refuses to send itself (an unknown format …). */
export async function postWithKey(url: string, apiKey: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'xi-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The error body of an ElevenLabs-shaped route: the contract's `error` with ElevenLabs' `detail` beside it. */
export const elevenLabsError = (code: string) => ({ error: { code }, detail: { status: code.toLowerCase() } });
