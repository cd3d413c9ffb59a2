import fs from 'node:fs';
import path from 'node:path';
import { apiMe, Console, SID_KEY } from '../lib/browser';
import { env, HANG_GUARD_MS, shot } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { listMails, waitForCode } from '../lib/outbox';
import { dismissToasts } from '../lib/speech';

/** Waits for a text message to `e164` in the server's file SMS outbox that is not among `seen`; returns its code. */
async function waitForSms(e164: string, seen: Set<string>): Promise<string> {
  const dir = path.join(env.server.dataDir, 'sms');
  const deadline = Date.now() + HANG_GUARD_MS;
  while (Date.now() < deadline) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.txt')) : [];
    for (const file of files.sort()) {
      if (seen.has(file)) continue;
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      if (!text.startsWith(`To: ${e164}\n`)) continue;
      seen.add(file);
      const code = /\b(\d{6})\b/.exec(text)?.[1];
      if (!code) throw new Error(`the message to ${e164} has no code: ${text}`);
      return code;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no text message to ${e164} within ${HANG_GUARD_MS / 1000} s`);
}

/**
 * Phone sign-in in zh-CN (the dialog offers the phone first), a number in national form read as a mainland one;
 * then on the profile page: the number changed with codes to the old and the new number (the page's third code of
 * the day needs the proof-of-work, solved in the page), and an email bound to the phone account. Contexts of their
 * own, so the shared page's account is untouched.
 */
export function phoneTests(): void {
  test('signs in by phone in zh-CN, the dialog offering the phone first; a bad number refused in Chinese', async () => {
    const base = env.server.baseUrl;
    const stamp = String(Date.now()).slice(-8);
    const first = `139${stamp}`;
    const seen = new Set<string>();
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      await page.addInitScript(() => localStorage.setItem('polyvox.lang', 'zh-CN'));
      const ui = new Console(page, base);
      await ui.goto('/');
      const anonSid = await ui.waitForSid();
      const anonId = (await apiMe(base, anonSid)).body.id as string;

      await ui.openSignInFromHeader('default');
      await page.getByTestId('signin-mobile').waitFor();
      assert((await page.getByTestId('signin-email').count()) === 0, 'zh-CN offers the phone first');
      await page.getByTestId('signin-mobile').fill('12345');
      await page.getByTestId('signin-send').click();
      await page.getByText('手机号格式不正确，请重新输入').waitFor();
      await page.getByTestId('signin-mobile').fill(`${first.slice(0, 3)} ${first.slice(3, 7)} ${first.slice(7)}`);
      await page.getByTestId('signin-send').click();
      await page.getByTestId('signin-code').fill(await waitForSms(`+86${first}`, seen));
      await page.getByTestId('signin-agree').check();
      await dismissToasts(page);
      const signedIn = page.waitForResponse((r) => new URL(r.url()).pathname === '/auth/sms');
      await page.getByTestId('signin-submit').click();
      assertEqual((await signedIn).status(), 200, 'POST /auth/sms');
      const sid = await ui.waitForSid(anonSid);
      const me = await apiMe(base, sid);
      assertEqual(me.body.id, anonId, 'the anonymous account was registered in place');
      assertEqual(me.body.anonymous, false, 'registered');

      await ui.goto('/app/my-profile');
      await page.getByTestId('profile-mobile').getByText(`+86${first}`).waitFor();
      await shot('profile-phone-zh-CN');
    } finally {
      await context.close();
    }
  });

  test('changes the number with codes to both (the page solves the proof-of-work) and binds an email', async () => {
    const base = env.server.baseUrl;
    const stamp = String(Date.now()).slice(-8);
    const first = `136${stamp}`;
    const second = `137${stamp}`;
    const seen = new Set<string>();
    // The account is made over HTTP as if from another network (the e2e server trusts one proxy hop), so the page's
    // own code requests meet no resend cooldown of the setup.
    const elsewhere = { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.31' };
    const anon = await fetch(`${base}/accounts/anonymous`, {
      method: 'POST',
      headers: elsewhere,
      body: JSON.stringify({ device: { udid: `e2e-phone-${stamp}`, model: 'e2e', brand: 'other', os: 'other' } }),
    });
    assertEqual(anon.status, 201, 'POST /accounts/anonymous');
    const { sid: anonSid } = (await anon.json()) as { sid: string };
    const asked = await fetch(`${base}/verification/mobile`, {
      method: 'POST',
      headers: { ...elsewhere, 'x-sid': anonSid },
      body: JSON.stringify({ mobile: `+86${first}` }),
    });
    assertEqual(asked.status, 200, 'a code for the first number');
    const registered = await fetch(`${base}/auth/sms`, {
      method: 'POST',
      headers: { ...elsewhere, 'x-sid': anonSid },
      body: JSON.stringify({ mobile: `+86${first}`, vcode: await waitForSms(`+86${first}`, seen) }),
    });
    assertEqual(registered.status, 200, 'POST /auth/sms');
    const { sid, account } = (await registered.json()) as { sid: string; account: { id: string } };

    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      await page.addInitScript(
        ([key, value]) => {
          if (!localStorage.getItem(key!)) localStorage.setItem(key!, value!);
          localStorage.setItem('polyvox.lang', 'zh-CN');
        },
        [SID_KEY, sid],
      );
      const ui = new Console(page, base);
      await ui.goto('/app/my-profile');
      await page.getByTestId('profile-mobile').getByText(`+86${first}`).waitFor();
      await page.getByTestId('mobile-bind-open').click();
      await page.getByTestId('mobile-bind-form').waitFor();
      await page.getByTestId('mobile-bind-current-send').click();
      const current = await waitForSms(`+86${first}`, seen);
      await page.getByTestId('mobile-bind-mobile').fill(second);
      // The address's third code of the day: the page solves the proof-of-work and asks again.
      const withWork = page.waitForRequest(
        (r) => new URL(r.url()).pathname === '/verification/mobile' && (r.postData() ?? '').includes('"challenge"'),
      );
      await page.getByTestId('mobile-bind-new-send').click();
      await withWork;
      const next = await waitForSms(`+86${second}`, seen);
      await page.getByTestId('mobile-bind-current-code').fill(current);
      await page.getByTestId('mobile-bind-new-code').fill(next);
      await dismissToasts(page);
      const changed = page.waitForResponse((r) => new URL(r.url()).pathname === '/accounts/me/mobile');
      await page.getByTestId('mobile-bind-submit').click();
      assertEqual((await changed).status(), 200, 'PUT /accounts/me/mobile with both codes');
      await page.getByTestId('profile-mobile').getByText(`+86${second}`).waitFor();

      // The phone account binds an email: one code, to the new address.
      const email = `phone-${stamp}@example.com`;
      const mails = new Set(listMails(env.server.outbox));
      await page.getByTestId('email-change-open').click();
      await page.getByTestId('email-change-email').fill(email);
      await page.getByTestId('email-change-new-send').click();
      const mailed = await waitForCode(env.server.outbox, email, mails);
      await page.getByTestId('email-change-new-code').fill(mailed.code);
      await dismissToasts(page);
      const bound = page.waitForResponse((r) => new URL(r.url()).pathname === '/accounts/me/email');
      await page.getByTestId('email-change-submit').click();
      assertEqual((await bound).status(), 200, 'PUT /accounts/me/email');
      const after = await apiMe(base, await ui.waitForSid(sid));
      assertEqual(after.body.email, email, 'the email is bound');
      assertEqual(after.body.id, account.id, 'the same account');
    } finally {
      await context.close();
    }
  });
}
