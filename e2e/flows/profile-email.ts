import { apiMe, Console, SID_KEY } from '../lib/browser';
import { env, shot, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { listMails, mailsTo, waitForCode } from '../lib/outbox';
import { dismissToasts } from '../lib/speech';

/**
 * A registered account changes its email from the profile page: a code from the current address and
 * one from the new address, a wrong current code refused in the form, the old address told, and the
 * account's other sessions ended. The account is set up over HTTP as if from another network (the
 * e2e server trusts one proxy hop), so the page's own code requests meet no cooldown of the setup.
 */
export function profileEmailTests(): void {
  test('a registered account changes its email with codes from both addresses; other sessions end', async () => {
    const base = env.server.baseUrl;
    const stamp = Date.now();
    const oldEmail = `move-${stamp}@example.com`;
    const newEmail = `moved-${stamp}@example.org`;
    const elsewhere = { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' };
    const anon = await fetch(`${base}/accounts/anonymous`, {
      method: 'POST',
      headers: elsewhere,
      body: JSON.stringify({ device: { udid: `e2e-move-${stamp}`, model: 'e2e', brand: 'other', os: 'other' } }),
    });
    assertEqual(anon.status, 201, 'POST /accounts/anonymous');
    const { sid: anonSid } = (await anon.json()) as { sid: string };
    const seen = new Set(listMails(env.server.outbox));
    const sent = await fetch(`${base}/verification/email`, {
      method: 'POST',
      headers: { ...elsewhere, 'x-sid': anonSid },
      body: JSON.stringify({ email: oldEmail }),
    });
    assertEqual(sent.status, 200, 'code for the first address');
    const first = await waitForCode(env.server.outbox, oldEmail, seen);
    seen.add(first.file);
    const registered = await fetch(`${base}/accounts/me/email`, {
      method: 'PUT',
      headers: { ...elsewhere, 'x-sid': anonSid },
      body: JSON.stringify({ email: oldEmail, vcode: first.code }),
    });
    assertEqual(registered.status, 200, 'registered in place');
    const { sid: otherSid, account } = (await registered.json()) as { sid: string; account: { id: string } };
    // A second device signs in from yet another network: the page's session.
    const second = { ...elsewhere, 'x-forwarded-for': '203.0.113.8' };
    assertEqual(
      (await fetch(`${base}/verification/email`, { method: 'POST', headers: second, body: JSON.stringify({ email: oldEmail }) }))
        .status,
      200,
      'sign-in code for the second device',
    );
    const signInCode = await waitForCode(env.server.outbox, oldEmail, seen);
    seen.add(signInCode.file);
    const signedIn = await fetch(`${base}/auth/email`, {
      method: 'POST',
      headers: second,
      body: JSON.stringify({ email: oldEmail, vcode: signInCode.code }),
    });
    assertEqual(signedIn.status, 200, 'POST /auth/email');
    const { sid: pageSid } = (await signedIn.json()) as { sid: string };
    assert(pageSid !== otherSid, 'two sessions of one account');

    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      await page.addInitScript(
        ([key, sid]) => {
          if (!localStorage.getItem(key!)) localStorage.setItem(key!, sid!);
          localStorage.setItem('polyvox.lang', 'en');
        },
        [SID_KEY, pageSid],
      );
      const ui = new Console(page, base);
      await ui.goto('/app/my-profile');
      await page.getByTestId('profile-email').getByText(oldEmail).waitFor();
      await page.getByTestId('email-change-open').click();
      await page.getByTestId('email-change-form').waitFor();

      // The current address's code first; then a wrong one is refused in the form and changes nothing.
      await page.getByTestId('email-change-current-send').click();
      const current = await waitForCode(env.server.outbox, oldEmail, seen);
      seen.add(current.file);
      await page.getByTestId('email-change-email').fill(newEmail);
      await page.getByTestId('email-change-new-send').click();
      const next = await waitForCode(env.server.outbox, newEmail, seen);
      seen.add(next.file);
      const wrong = current.code === '111111' ? '222222' : '111111';
      await page.getByTestId('email-change-current-code').fill(wrong);
      await page.getByTestId('email-change-new-code').fill(next.code);
      // The codes' toasts sit at the bottom right, over the form's button (and a pointer resting on one keeps it open).
      const refused = page.waitForResponse((r) => new URL(r.url()).pathname === '/accounts/me/email');
      await dismissToasts(page);
      await page.getByTestId('email-change-submit').click();
      assertEqual((await refused).status(), 403, 'a wrong current-address code');
      await page.getByTestId('email-change-error').waitFor();
      assert(
        (await page.getByTestId('email-change-error').innerText()).includes('Captcha is incorrect'),
        'the refusal is shown in the form, in English',
      );
      assertEqual((await apiMe(base, otherSid)).body.email, oldEmail, 'nothing changed after the refusal');
      assertEqual((await apiMe(base, otherSid)).status, 200, 'and the other session still works');
      await shot('profile-email-change-en');

      // Listened for before the field changes: the answer is caught whenever the form sends it.
      const moved = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/accounts/me/email' && r.request().method() === 'PUT' && r.status() !== 403,
      );
      await page.getByTestId('email-change-current-code').fill(current.code);
      // Sent with Enter from the code field, as a person may: a toast that shows up late over the button (and stays
      // while a pointer rests on it) cannot hold the form back.
      await dismissToasts(page);
      await page.getByTestId('email-change-current-code').press('Enter');
      assertEqual((await moved).status(), 200, 'PUT /accounts/me/email with both codes');
      await page.getByTestId('email-change-form').waitFor({ state: 'detached' });
      await page.getByTestId('profile-email').getByText(newEmail).waitFor();

      // The page adopted the new session; the one it replaced and the setup's other session both ended.
      const adopted = await ui.waitForSid(pageSid);
      const me = await apiMe(base, adopted);
      assertEqual(me.status, 200, 'the adopted session works');
      assertEqual(me.body.id, account.id, 'same account');
      assertEqual(me.body.email, newEmail, 'under the new address');
      assertEqual((await apiMe(base, pageSid)).status, 401, "the page's old session ended");
      assertEqual((await apiMe(base, otherSid)).status, 401, "the other device's session ended");
      const told = await mailsTo(env.server.outbox, oldEmail);
      assert(told.length >= 4, `the old address was told of the change (${told.length} messages to it)`);
    } finally {
      await context.close();
    }
  });
}
