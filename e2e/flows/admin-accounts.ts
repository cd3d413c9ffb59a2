import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { generate } from 'otplib';
import { SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { ROOT } from '../lib/server';
import { env, LANGS, shot } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { axeViolations, overflowReport, waitForSettledPage } from '../lib/layout-checks';
import { dismissToasts } from '../lib/speech';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
];

/**
 * The page's account as an owner past the second factor. After admin-core it already is; run alone
 * (E2E_FLOWS=admin-accounts) the account is named owner by the command line and sets TOTP up through the API.
 */
async function elevatedOwner(): Promise<void> {
  await ensureSignedIn();
  const headers = { 'x-sid': (await env.ui.storage(SID_KEY)) ?? '', 'content-type': 'application/json' };
  const status = await fetch(`${env.server.baseUrl}/admin/api/auth/status`, { headers });
  if (status.status === 200 && ((await status.json()) as { elevated: boolean }).elevated) return;
  if (status.status === 403) {
    const me = (await (await fetch(`${env.server.baseUrl}/accounts/me`, { headers })).json()) as { email: string };
    const cli = path.join(ROOT, 'apps/server/src/admin/cli.ts');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', cli, 'operator', 'add', me.email, '--role', 'owner'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: env.server.dataDir, LOG_LEVEL: 'silent' },
    });
  }
  const enrol = await fetch(`${env.server.baseUrl}/admin/api/auth/totp/enrol`, { method: 'POST', headers });
  assertEqual(enrol.status, 200, 'POST /admin/api/auth/totp/enrol');
  const { secret } = (await enrol.json()) as { secret: string };
  const confirm = await fetch(`${env.server.baseUrl}/admin/api/auth/totp/confirm`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ code: await generate({ secret }) }),
  });
  assertEqual(confirm.status, 200, 'POST /admin/api/auth/totp/confirm');
}

/** A customer to work on: a new anonymous account made through the API, and its session. */
async function customer(): Promise<{ id: string; sid: string }> {
  const res = await fetch(`${env.server.baseUrl}/accounts/anonymous`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ device: { udid: `e2e-${Date.now()}`, model: 'Chrome', brand: 'other', os: 'other' } }),
  });
  assertEqual(res.status, 201, 'POST /accounts/anonymous');
  const body = (await res.json()) as { account: { id: string }; sid: string };
  return { id: body.account.id, sid: body.sid };
}

async function asCustomer(sid: string, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${env.server.baseUrl}${path}`, { headers: { 'x-sid': sid } });
  return { status: res.status, body: await res.json() };
}

/** Opens the action's dialog on the account page, types the reason (and amount), confirms, waits for it to close. */
async function act(action: string, reason: string, amount?: number): Promise<void> {
  const page = env.page;
  await page.getByTestId(`action-${action}`).click();
  if (amount !== undefined) await page.getByTestId('action-amount').fill(String(amount));
  await page.getByTestId('action-reason').fill(reason);
  await page.getByTestId('action-confirm').click();
  await page.getByTestId('action-confirm').waitFor({ state: 'detached' });
}

/**
 * The operator console's accounts and business overview (after admin-core, whose owner is signed in and past the
 * second factor): search, one account, grant and deduct with a reason the customer sees, disable and enable, the
 * overview's figures; every page at 390 px and 1440 px in the three languages.
 */
export function adminAccountsTests(): void {
  let target = { id: '', sid: '' };

  test('finds an account, grants and deducts with a reason the customer sees, disables and enables it', async () => {
    const page = env.page;
    await elevatedOwner();
    target = await customer();
    const before = (await asCustomer(target.sid, '/accounts/me')).body.vip.credits as number;

    await env.ui.goto(`/admin/accounts?q=${target.id}`);
    const row = page.locator(`[data-testid="account-row"][data-id="${target.id}"]`);
    await row.waitFor();
    assertEqual(await page.getByTestId('account-row').count(), 1, 'the search (kept in the URL) finds the one account');
    await row.click();
    await env.ui.waitForHash(`/admin/accounts/${target.id}`);
    await page.getByTestId('account-page').waitFor();

    await act('grant', 'e2e goodwill', 1234);
    await page.locator('[data-testid="ledger-row"][data-kind="grant"][data-amount="1234"]').waitFor();
    await act('deduct', 'e2e correction', 34);
    await page.locator('[data-testid="ledger-row"][data-kind="grant"][data-amount="-34"]').waitFor();
    const records = (await asCustomer(target.sid, '/api/credits/records')).body.items as { amount: number; reason: string }[];
    assertEqual(records[0]?.reason, 'e2e correction', "the customer's newest record carries the reason");
    assertEqual(records[1]?.reason, 'e2e goodwill', 'and the grant its own');
    assertEqual((await asCustomer(target.sid, '/accounts/me')).body.vip.credits, before + 1200, 'the balance moved by both');
    await shot('admin-account-1440');

    await act('disable', 'e2e abuse report');
    await page.getByTestId('disabled-alert').waitFor();
    const refused = await asCustomer(target.sid, '/accounts/me');
    assertEqual(refused.status, 403, "the customer's session is refused");
    assertEqual(refused.body.error.code, 'ACCOUNT_DISABLED', 'saying why');
    await act('enable', 'e2e appeal accepted');
    await page.getByTestId('disabled-alert').waitFor({ state: 'detached' });
    await page.locator('[data-testid="account-page"][data-status="active"]').waitFor();
  });

  test('the business overview counts the credits granted today', async () => {
    const page = env.page;
    await env.ui.goto('/admin/overview');
    await page.getByTestId('overview-credits').waitFor();
    const granted = Number((await page.getByTestId('credits-granted').getAttribute('data-value')) ?? 0);
    assert(granted >= 1234, `credits granted in the range include the grant: ${granted}`);
    for (const card of ['revenue', 'accounts', 'engines', 'orders', 'speech', 'queues', 'health'])
      await page.getByTestId(`overview-${card}`).waitFor();
  });

  test('the accounts and overview pages fit at 390 px and 1440 px in the three languages; axe finds nothing serious', async () => {
    const pages = ['/admin/overview', '/admin/accounts', `/admin/accounts/${target.id}`];
    const problems: string[] = [];
    for (const lang of LANGS) {
      await env.ui.goto(pages[0]!);
      await env.ui.chooseLanguage(lang);
      for (const viewport of VIEWPORTS) {
        await env.page.setViewportSize(viewport);
        for (const route of pages) {
          await env.ui.goto(route);
          const where = `${route} ${lang} ${viewport.width}px`;
          await waitForSettledPage(env.page).catch((e: Error) => problems.push(`${where}: ${e.message.split('\n')[0]}`));
          await dismissToasts(env.page);
          const overflow = await overflowReport(env.page);
          if (overflow.scrollWidth > overflow.innerWidth)
            problems.push(`${where}: scrollWidth ${overflow.scrollWidth} > ${overflow.innerWidth}`);
          for (const v of await axeViolations(env.page)) problems.push(`${where}: ${v}`);
          if (viewport.width === 390) await shot(`admin-${route.split('/')[2]}-${lang}-390`);
        }
      }
    }
    await env.page.setViewportSize({ width: 1280, height: 800 });
    assertEqual(problems.join('\n'), '', 'accounts and overview pages at both widths in three languages');
  });
}
