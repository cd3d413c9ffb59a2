import { execFileSync } from 'node:child_process';
import { generate } from 'otplib';
import { SID_KEY, UDID_KEY } from '../lib/browser';
import { env } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { ROOT } from '../lib/server';
import { dismissToasts } from '../lib/speech';
import { ensureRegistered } from './economy';

interface VirtualCredential {
  credentialId: string;
  rpId: string;
  signCount: number;
}

/**
 * A passkey as the operator's second factor, in Chromium with its virtual authenticator (CDP WebAuthn): the operator
 * past TOTP adds a passkey on the console's first page, locks the console, and opens it again with the passkey. A
 * passkey cannot be bound to an IP address, so this flow opens the console on `localhost` (one of the server's
 * ALLOWED_ORIGINS, see lib/server.ts) with the same session.
 */
export function adminPasskeyTests(): void {
  test('an operator adds a passkey, locks the console and passes the second factor with the passkey', async () => {
    const page = env.page;
    await ensureRegistered(page);
    const sid = await env.ui.waitForSid();
    const status = await fetch(`${env.server.baseUrl}/admin/api/auth/status`, { headers: { 'x-sid': sid } });
    const elevated = status.status === 200 && ((await status.json()) as { elevated?: boolean }).elevated === true;
    if (!elevated) {
      // Alone (without admin-core before it), the account is named an owner here and sets up TOTP first.
      const me = (await (await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': sid } })).json()) as {
        email: string;
      };
      execFileSync('npm', ['run', '--silent', 'admin', '--', 'operator', 'add', me.email, '--role', 'owner'], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: env.server.dataDir },
      });
      await env.ui.goto('/admin');
      await page.getByTestId('totp-start').click();
      const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
      await page.getByTestId('recovery-kept').click();
      await page.getByTestId('totp-confirm-input').fill(await generate({ secret }));
      await page.getByTestId('totp-confirm-submit').click();
      await page.getByTestId('admin-permissions').waitFor();
    }

    // The same session on http://localhost:<port>.
    const local = new URL(env.server.baseUrl);
    local.hostname = 'localhost';
    const udid = await env.ui.storage(UDID_KEY);
    const tab = await page.context().newPage();
    try {
      // The session is in place before the console's scripts run (they would start an anonymous one otherwise).
      await tab.addInitScript(
        ([sidKey, sidValue, udidKey, udidValue]) => {
          localStorage.setItem(sidKey!, sidValue!);
          if (udidValue) localStorage.setItem(udidKey!, udidValue);
        },
        [SID_KEY, sid, UDID_KEY, udid] as const,
      );
      await tab.context().addCookies([{ name: 'sid', value: sid, url: local.origin }]);
      const cdp = await tab.context().newCDPSession(tab);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = (await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
        },
      })) as { authenticatorId: string };
      const credentials = async () =>
        ((await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: VirtualCredential[] }).credentials;

      await tab.goto(`${local.origin}/#/admin`);
      const factors = tab.getByTestId('admin-factors');
      await factors.waitFor();
      assertEqual(await factors.getAttribute('data-passkeys'), '0', 'no passkey yet');
      await dismissToasts(tab);
      await tab.getByTestId('passkey-add').click();
      await tab.locator('[data-testid="admin-factors"][data-passkeys="1"]').waitFor();
      const made = await credentials();
      assertEqual(made.length, 1, 'the authenticator holds one credential');
      assertEqual(made[0]!.rpId, 'localhost', "the passkey is bound to the console's host");

      // Locked, the console asks again; the passkey tab signs with the authenticator and opens it.
      await dismissToasts(tab);
      await tab.getByTestId('admin-lock').click();
      await tab.getByTestId('admin-second-factor').waitFor();
      await tab.getByTestId('tab-passkey').click();
      await tab.getByTestId('passkey-use').click();
      await tab.getByTestId('admin-permissions').waitFor();
      const used = await credentials();
      assert(used[0]!.signCount > made[0]!.signCount, `the passkey signed (count ${made[0]!.signCount} → ${used[0]!.signCount})`);

      // The trail names both: the passkey enrolled, then used to pass.
      for (const action of ['operator.factor_enrol', 'operator.factor_pass']) {
        const trail = (await (
          await fetch(`${env.server.baseUrl}/admin/api/audit?action=${action}`, { headers: { 'x-sid': sid } })
        ).json()) as { items: { after: { method?: string } | null }[] };
        assert(
          trail.items.some((e) => e.after?.method === 'passkey'),
          `the trail holds ${action} with a passkey`,
        );
      }
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    } finally {
      await tab.close();
    }
    // The session the later flows use is open again (its elevation is the session's, whichever origin passed it).
    const after = await fetch(`${env.server.baseUrl}/admin/api/auth/status`, { headers: { 'x-sid': sid } });
    assertEqual(((await after.json()) as { elevated?: boolean }).elevated, true, 'the session is elevated again');
  });
}
