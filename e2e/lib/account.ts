import { SID_KEY } from './browser';
import { env, state } from './env';
import { assertEqual } from './assert';
import { waitForCode } from './outbox';

async function sid(): Promise<string> {
  return (await env.ui.storage(SID_KEY)) ?? '';
}

/**
 * The console pages need a registered account. The session flow leaves one signed in; a flow run alone
 * (E2E_FLOWS=a11y) registers the browser's anonymous account through the API, as the sign-in form would.
 */
export async function ensureSignedIn(): Promise<void> {
  await env.ui.goto('/app/dashboard');
  await env.ui.waitForSid();
  const me = (await (await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': await sid() } })).json()) as {
    anonymous: boolean;
  };
  if (!me.anonymous) return;
  const email = `console-${Date.now()}@example.com`;
  const headers = { 'x-sid': await sid(), 'content-type': 'application/json' };
  const sent = await fetch(`${env.server.baseUrl}/verification/email`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email }),
  });
  assertEqual(sent.status, 200, 'POST /verification/email');
  const { code } = await waitForCode(env.server.outbox, email, new Set());
  const res = await fetch(`${env.server.baseUrl}/accounts/me/email`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ email, vcode: code }),
  });
  assertEqual(res.status, 200, 'PUT /accounts/me/email');
  const body = (await res.json()) as { sid: string };
  await env.page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [SID_KEY, body.sid]);
  await env.page.context().addCookies([{ name: 'sid', value: body.sid, url: env.server.baseUrl }]);
  state.registeredSid = body.sid;
  await env.page.reload();
  await env.page.getByTestId('page-title').first().waitFor();
}
