// TEMPORARY dev driver (deleted before hand-off): runs the speech flows against a running server.
import { launchBrowser, Console } from './lib/browser';
import { env } from './lib/env';
import { Suite } from './lib/harness';
import { waitForCode } from './lib/outbox';
import { playgroundTests } from './flows/playground';
import { libraryTests } from './flows/library';

const base = process.env.BASE ?? 'http://127.0.0.1:18931';
const dataDir = process.env.DATA ?? '/tmp/pv-dev';
const only = process.env.ONLY;
env.server = { baseUrl: base, dataDir, outbox: `${dataDir}/outbox`, logs: () => '', stop: async () => {} };
const email = `dev-${Date.now()}@example.com`;
const j = (sid: string | null) => ({ 'content-type': 'application/json', ...(sid ? { 'x-sid': sid } : {}) });
const anon = (await (
  await fetch(`${base}/accounts/anonymous`, {
    method: 'POST',
    headers: j(null),
    body: JSON.stringify({ channel: 'def_web', device: { udid: 'web-dev', os: 'other', brand: 'other', model: '' } }),
  })
).json()) as { sid: string };
await fetch(`${base}/verification/email`, { method: 'POST', headers: j(anon.sid), body: JSON.stringify({ email }) });
const { code } = await waitForCode(env.server.outbox, email, new Set());
const reg = (await (
  await fetch(`${base}/accounts/me/email`, { method: 'PUT', headers: j(anon.sid), body: JSON.stringify({ email, vcode: code }) })
).json()) as { sid: string };
env.browser = await launchBrowser();
const ctx = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
env.page = await ctx.newPage();
env.page.setDefaultTimeout(15_000);
await env.page.addInitScript({
  content: `if (!sessionStorage.getItem('seeded')) { localStorage.setItem('polyvox.sid', ${JSON.stringify(reg.sid)}); localStorage.setItem('polyvox.lang', 'en'); sessionStorage.setItem('seeded', '1'); }`,
});
env.ui = new Console(env.page, base);
env.page.on('console', (m) => {
  if (m.type() === 'error' || m.type() === 'warning') console.log('[page]', m.type(), m.text().slice(0, 300));
});
env.page.on('pageerror', (e) => console.log('[pageerror]', e.message));
const suite = new Suite();
const all = new Suite();
playgroundTests(all);
libraryTests(all);
// filter
for (const e of (all as unknown as { entries: { name: string; fn: () => Promise<void> }[] }).entries)
  if (!only || only === 'all' || only.split('|').some((o) => e.name.includes(o))) suite.test(e.name, e.fn);
await suite.run(async (name) => {
  await env.page.screenshot({ path: `/tmp/failed-${name.slice(0, 30).replace(/\W+/g, '-')}.png` });
});
await env.browser.close();
console.log(`${suite.passed} passed, ${suite.failed} failed`);
