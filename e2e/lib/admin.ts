import { spawnSync } from 'node:child_process';
import { generate } from 'otplib';
import { SID_KEY } from './browser';
import { ensureSignedIn } from './account';
import { env } from './env';
import { assertEqual } from './assert';
import { ROOT } from './server';

/** Steps the operator-console flows share: the shared page's session calling the API, an owner made, a page opened. */

/** A call with the shared page's session; `lang` is sent as Accept-Language. */
export async function adminApi(
  method: string,
  path: string,
  body?: unknown,
  lang = 'en',
): Promise<{ status: number; body: any }> {
  const sid = (await env.ui.storage(SID_KEY)) ?? '';
  const res = await fetch(`${env.server.baseUrl}${path}`, {
    method,
    headers: { 'x-sid': sid, 'accept-language': lang, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

/** Names the signed-in account an owner (the command line, as the first owner is made) and passes TOTP; nothing when it already is. */
export async function becomeOwner(): Promise<void> {
  await ensureSignedIn();
  const me = await adminApi('GET', '/accounts/me');
  const status = await adminApi('GET', '/admin/api/auth/status');
  if (status.status === 200 && status.body.elevated) return;
  if (status.status === 403) {
    const added = spawnSync('npm', ['run', '--silent', 'admin', '--', 'operator', 'add', me.body.email, '--role', 'owner'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: env.server.dataDir, MODELS_DIR: `${env.server.dataDir}/models` },
      encoding: 'utf8',
    });
    assertEqual(added.status, 0, `npm run admin -- operator add: ${added.stderr}`);
  }
  const enrolled = await adminApi('POST', '/admin/api/auth/totp/enrol');
  assertEqual(enrolled.status, 200, `enrol: ${JSON.stringify(enrolled.body)}`);
  const confirmed = await adminApi('POST', '/admin/api/auth/totp/confirm', {
    code: await generate({ secret: enrolled.body.secret }),
  });
  assertEqual(confirmed.status, 200, `confirm: ${JSON.stringify(confirmed.body)}`);
}

/** Opens a console route in `lang` (stored as the language menu stores it, then a full load). */
export async function openIn(route: string, lang: string): Promise<void> {
  await env.page.evaluate((l) => localStorage.setItem('polyvox.lang', l), lang);
  await env.ui.goto(route);
  await env.page.reload();
}
