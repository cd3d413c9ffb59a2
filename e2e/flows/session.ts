import fs from 'node:fs';
import path from 'node:path';
import type { Request } from '@playwright/test';
import { apiMe, Console, UDID_KEY } from '../lib/browser';
import { env, LANGS, SHOTS, shot, state, TEXT } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { listMails, mailsTo, waitForCode } from '../lib/outbox';

/** Anonymous start, the sign-in modal, registration, sign-out, the guard, and signing in again. */

async function fillCodeFromOutbox(address: string, seen: Set<string>): Promise<void> {
  const { code, file } = await waitForCode(env.server.outbox, address, seen);
  seen.add(file);
  await env.page.getByTestId('signin-code').fill(code);
}

export function sessionTests(): void {
  test('a first visit creates an anonymous account, in Simplified Chinese by default', async () => {
    const apiRequests: Request[] = [];
    env.page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/accounts/anonymous') apiRequests.push(r);
    });
    await env.ui.goto('/');
    const sid = await env.ui.waitForSid();
    const me = await apiMe(env.server.baseUrl, sid);
    assertEqual(me.status, 200, 'GET /api/me with the stored sid');
    assertEqual(me.body.anonymous, true, 'the first account is anonymous');
    state.anonymousId = me.body.id;
    state.anonymousSid = sid;
    assert((await env.ui.storage(UDID_KEY))?.startsWith('web-'), 'the udid is kept in local storage as web-…');
    assertEqual(await env.ui.text('header-signin'), TEXT.signIn['zh-CN'], 'the header speaks zh-CN by default');

    assertEqual(apiRequests.length, 1, 'one POST /accounts/anonymous');
    const req = apiRequests[0]!;
    const url = new URL(req.url());
    assertEqual(url.searchParams.get('from'), 'web', 'query from');
    assert(url.searchParams.get('cv'), 'query cv is set');
    assertEqual(url.searchParams.get('lang'), 'zh-CN', 'query lang');
    const body = req.postDataJSON() as { channel: string; device: { udid: string; os: string; brand: string; model: string } };
    assertEqual(body.channel, 'def_web', 'channel');
    assertEqual(body.device.udid, await env.ui.storage(UDID_KEY), 'device.udid is the stored udid');
    assert(['android', 'ios', 'osx', 'windows', 'other'].includes(body.device.os), `device.os from the list: ${body.device.os}`);

    // Later calls carry the session header.
    const meReq = env.page.waitForRequest((r) => new URL(r.url()).pathname === '/docs/terms');
    await env.ui.goto('/terms');
    const headers = (await meReq).headers();
    assertEqual(headers['x-sid'], sid, 'x-sid header on later requests');
  });

  test('the sign-in modal in en, zh-CN and zh-TW (screenshots)', async () => {
    await env.ui.goto('/');
    fs.mkdirSync(SHOTS, { recursive: true });
    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      assertEqual(await env.ui.text('header-signin'), TEXT.signIn[lang], `header sign-in button in ${lang}`);
      await env.ui.openSignInFromHeader();
      await env.page.getByRole('dialog', { name: TEXT.modalTitle[lang] }).waitFor({ state: 'visible' });
      await env.page.waitForTimeout(400); // let the opening transition finish before the picture
      const file = path.join(SHOTS, `signin-modal-${lang}.png`);
      await env.page.screenshot({ path: file });
      assert(fs.statSync(file).size > 10_000, `screenshot ${file} was written`);
      await env.ui.closeSignIn();
    }
  });

  test('client-side validation messages, without calling the server', async () => {
    await env.ui.chooseLanguage('en');
    await env.ui.openSignInFromHeader();
    let verificationCalls = 0;
    const count = (r: Request) => {
      if (new URL(r.url()).pathname === '/verification/email') verificationCalls++;
    };
    env.page.on('request', count);
    const form = env.ui.signInForm();
    await env.page.getByTestId('signin-email').fill('');
    await env.page.getByTestId('signin-submit').click();
    await form.getByText('Please enter email', { exact: true }).waitFor();
    await env.page.getByTestId('signin-email').fill('not-an-email');
    await env.page.getByTestId('signin-send').click();
    await form.getByText('The email format is incorrect, please re-enter', { exact: true }).waitFor();
    await env.page.getByTestId('signin-email').fill(state.email);
    await env.page.getByTestId('signin-submit').click();
    await form.getByText('Please enter the verification code', { exact: true }).waitFor();
    await env.page.getByTestId('signin-code').fill('123');
    await env.page.getByTestId('signin-submit').click();
    await form.getByText('Captcha is incorrect, please re-enter', { exact: true }).waitFor();
    await env.page.waitForTimeout(300);
    env.page.off('request', count);
    assertEqual(verificationCalls, 0, 'no code was requested for an invalid email');
    await env.ui.closeSignIn();
  });

  test('registers the anonymous account under a new email with a mailed code', async () => {
    const seen = new Set(listMails(env.server.outbox));
    await env.ui.openSignInFromHeader();
    await env.page.getByTestId('signin-email').fill(state.email);
    await env.page.getByTestId('signin-send').click();
    await env.page.waitForFunction(
      () => Number(document.querySelector('[data-testid="signin-send"]')?.getAttribute('data-countdown')) > 50,
    );
    assert(await env.page.getByTestId('signin-send').isDisabled(), 'the send button is disabled during the countdown');
    await env.page.getByTestId('signin-send').click({ force: true });
    await fillCodeFromOutbox(state.email, seen);
    await env.page.waitForTimeout(500);
    assertEqual((await mailsTo(env.server.outbox, state.email)).length, 1, 'clicks during the countdown send nothing');

    // Submitting without the agreement asks for it; agreeing ticks the box and carries on.
    assert(!(await env.page.getByTestId('signin-agree').isChecked()), 'the agreement starts unticked');
    const refreshes: number[] = [];
    env.page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/accounts/me' && r.method() === 'GET') refreshes.push(Date.now());
    });
    await env.page.getByTestId('signin-submit').click();
    await env.page.getByTestId('agree-dialog').waitFor({ state: 'visible' });
    await env.page.waitForTimeout(400);
    await shot('agreement-dialog-en');
    const registered = env.page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/accounts/me/email' && r.request().method() === 'PUT',
    );
    await env.page.getByTestId('agree-confirm').click();
    const response = await registered;
    const registeredAt = Date.now();
    assertEqual(response.status(), 200, 'PUT /accounts/me/email');

    await env.ui.waitForHash('/app/dashboard');
    await env.page.getByTestId('dashboard-email').getByText(state.email).waitFor();
    await shot('dashboard-en');
    const sid = await env.ui.waitForSid(state.anonymousSid);
    const me = await apiMe(env.server.baseUrl, sid);
    assertEqual(me.body.anonymous, false, 'registered account is not anonymous');
    assertEqual(me.body.email, state.email, 'registered email');
    assertEqual(me.body.id, state.anonymousId, 'the anonymous account was registered in place');
    state.registeredId = me.body.id;
    state.registeredSid = sid;

    // The account is fetched again about 5 s after registering.
    await env.page.waitForTimeout(Math.max(0, registeredAt + 7000 - Date.now()));
    const later = refreshes.filter((t) => t - registeredAt >= 4500 && t - registeredAt <= 7000);
    assert(
      later.length >= 1,
      `GET /accounts/me about 5 s after registration (saw ${refreshes.map((t) => t - registeredAt).join(', ') || 'none'})`,
    );
  });

  test('signing out ends the session and starts a new anonymous one', async () => {
    await env.page.getByTestId('account-menu').click();
    await env.page.getByTestId('account-signout').click();
    await env.ui.waitForHash('/');
    const sid = await env.ui.waitForSid(state.registeredSid);
    await env.page.getByTestId('header-signin').waitFor({ state: 'visible' });
    const me = await apiMe(env.server.baseUrl, sid);
    assertEqual(me.body.anonymous, true, 'the new session is anonymous');
    assert(me.body.id !== state.registeredId, 'the new session is another account');
    assertEqual((await apiMe(env.server.baseUrl, state.registeredSid!)).status, 401, 'the old session no longer works');
    // Nothing opens by itself, and nothing of the previous user is left in the sign-in form.
    await env.ui.signInForm().waitFor({ state: 'hidden' });
    await env.ui.openSignInFromHeader();
    assertEqual(await env.page.getByTestId('signin-email').inputValue(), '', 'the email is empty after sign-out');
    assert(!(await env.page.getByTestId('signin-agree').isChecked()), 'the agreement is unticked after sign-out');
    assertEqual(await env.page.getByTestId('signin-send').getAttribute('data-countdown'), '0', 'no countdown after sign-out');
    assert(await env.page.getByTestId('signin-send').isEnabled(), 'Send code is available');
    await env.ui.closeSignIn();
  });

  test('a guarded route while anonymous opens the sign-in modal at the root', async () => {
    await env.ui.goto('/app/my-profile');
    await env.ui.signInForm().waitFor({ state: 'visible' });
    await env.ui.waitForHash('/');
    await shot('guarded-route-signin-en');
  });

  test('signs in again to the same email with a new code and lands on the remembered page', async () => {
    // The form opened by the guard in the previous test; the server still refuses a resend for this email.
    await env.ui.signInForm().waitFor({ state: 'visible' });
    await env.page.getByTestId('signin-email').fill(state.email);
    const send = env.page.getByTestId('signin-send');
    const refused = env.page.waitForResponse((r) => new URL(r.url()).pathname === '/verification/email');
    await send.click();
    assertEqual((await refused).status(), 429, "the server's cooldown for this email");
    await env.page.waitForFunction(
      () => Number(document.querySelector('[data-testid="signin-send"]')?.getAttribute('data-countdown')) > 0,
    );
    await env.page.waitForFunction(
      () => !(document.querySelector('[data-testid="signin-send"]') as HTMLButtonElement | null)?.disabled,
      null,
      {
        timeout: 75_000,
      },
    );
    const seen = new Set(listMails(env.server.outbox));
    await send.click();
    await fillCodeFromOutbox(state.email, seen);
    await env.page.getByTestId('signin-agree').check();
    const signIn = env.page.waitForResponse((r) => new URL(r.url()).pathname === '/auth/email');
    await env.page.getByTestId('signin-submit').click();
    assertEqual((await signIn).status(), 200, 'POST /auth/email');
    await env.page.getByText('Sign in successful', { exact: true }).first().waitFor();
    await env.ui.waitForHash('/app/my-profile');
    await env.page.getByTestId('profile-email').getByText(state.email).waitFor();
    const sid = await env.ui.waitForSid(state.registeredSid);
    const me = await apiMe(env.server.baseUrl, sid);
    assertEqual(me.body.id, state.registeredId, 'signed in to the registered account');
    state.registeredSid = sid;
    await shot('profile-en');
  });

  test("a fresh page honours the server's resend cooldown (429 CODE_COOLDOWN, retry-after)", async () => {
    const fresh = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await fresh.newPage();
      await p.addInitScript({ content: "localStorage.setItem('polyvox.lang', 'en');" });
      const other = new Console(p, env.server.baseUrl);
      await other.goto('/');
      await other.waitForSid();
      await other.openSignInFromHeader();
      await p.getByTestId('signin-email').fill(state.email);
      const refused = p.waitForResponse((r) => new URL(r.url()).pathname === '/verification/email');
      await p.getByTestId('signin-send').click();
      const res = await refused;
      assertEqual(res.status(), 429, 'a second code within 60 s is refused');
      const retryAfter = Number(res.headers()['retry-after']);
      assert(retryAfter > 0 && retryAfter <= 60, `retry-after is set (${retryAfter})`);
      // The answer arrives before the page has shown it: wait for the countdown, then compare.
      await p.waitForFunction(
        () => Number(document.querySelector('[data-testid="signin-send"]')?.getAttribute('data-countdown')) > 0,
      );
      const shown = Number(await p.getByTestId('signin-send').getAttribute('data-countdown'));
      assert(Math.abs(shown - retryAfter) <= 2, `the countdown follows retry-after (${shown} vs ${retryAfter})`);
      assert(await p.getByTestId('signin-send').isDisabled(), 'the send button waits');
    } finally {
      await fresh.close();
    }
  });

  test('requests wait for the account, and a failed start-up offers a retry', async () => {
    const fresh = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await fresh.newPage();
      await p.route('**/accounts/anonymous*', (route) => route.abort());
      const other = new Console(p, env.server.baseUrl);
      let docsBeforeAccount = 0;
      p.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/docs/')) docsBeforeAccount++;
      });
      await other.goto('/terms');
      await p.getByTestId('session-failed').waitFor();
      assertEqual(docsBeforeAccount, 0, 'no queued request went out without an account');
      await p.getByTestId('doc-error').waitFor();
      await p.unroute('**/accounts/anonymous*');
      await p.getByTestId('session-failed').getByRole('button').click();
      await other.waitForSid();
      await p.getByTestId('session-failed').waitFor({ state: 'detached' });
    } finally {
      await fresh.close();
    }
  });
}
