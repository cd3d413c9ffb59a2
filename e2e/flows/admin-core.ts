import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { generate } from 'otplib';
import { OPERATOR_PERMISSIONS } from '@polyvox/contracts';
import { SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { env, LANGS, shot } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { axeViolations, overflowReport, waitForSettledPage } from '../lib/layout-checks';
import { ROOT } from '../lib/server';
import { waitForCode } from '../lib/outbox';
import { dismissToasts } from '../lib/speech';

const run = promisify(execFile);
const PAGES = ['/admin', '/admin/operators', '/admin/audit'];
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
];

/** The signed-in account's email (the session flow, or ensureSignedIn, registered it). */
async function myEmail(): Promise<string> {
  const sid = (await env.ui.storage(SID_KEY)) ?? '';
  const me = (await (await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': sid } })).json()) as {
    email: string;
  };
  return me.email;
}

/** `npm run admin -- operator …` against the run's platform (its DATA_DIR, and DATABASE_URL when it has one). */
async function adminCli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/server/src/admin/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: env.server.dataDir, LOG_LEVEL: 'silent' },
  });
  return stdout;
}

/** A registered account made through the API (another person the owner names an operator). */
async function registeredAccount(email: string): Promise<void> {
  const headers = { 'content-type': 'application/json' };
  const sent = await fetch(`${env.server.baseUrl}/verification/email`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email }),
  });
  assertEqual(sent.status, 200, 'POST /verification/email');
  const { code } = await waitForCode(env.server.outbox, email, new Set());
  const res = await fetch(`${env.server.baseUrl}/auth/email`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, vcode: code }),
  });
  assertEqual(res.status, 200, 'POST /auth/email');
}

/** The operator console: the first owner from the command line, the second factor, operators, the audit trail. */
export function adminCoreTests(): void {
  test('a customer is told the console is not theirs; the owner the CLI names sets up TOTP and opens it', async () => {
    await ensureSignedIn();
    const page = env.page;
    await env.ui.goto('/admin');
    await page.getByTestId('admin-not-operator').waitFor();

    const email = await myEmail();
    assert(
      (await adminCli('operator', 'add', email, '--role', 'owner')).includes('is now an operator: owner'),
      'the CLI names the owner',
    );
    await page.reload();
    await page.getByTestId('admin-second-factor').waitFor();
    await page.getByTestId('totp-start').click();
    await page.getByTestId('totp-enrolment').waitFor();
    const uri = (await page.getByTestId('qr-code').getAttribute('data-text')) ?? '';
    assert(uri.startsWith('otpauth://totp/'), `the QR code holds the otpauth URI: ${uri}`);
    const secret = await page.getByTestId('totp-secret').innerText();
    assertEqual(new URL(uri).searchParams.get('secret'), secret, 'the QR code and the typed secret agree');
    const codes = await page.getByTestId('recovery-code').allInnerTexts();
    assertEqual(codes.length, 10, 'ten recovery codes');
    await shot('admin-enrol');
    await page.getByTestId('recovery-kept').click();
    await page.getByTestId('totp-confirm-input').fill(await generate({ secret }));
    await page.getByTestId('totp-confirm-submit').click();
    await page.getByTestId('admin-permissions').waitFor();
    for (const nav of ['home', 'operators', 'audit']) await page.getByTestId(`admin-nav-${nav}`).waitFor();
    assertEqual(
      await page.locator('[data-testid="admin-permissions"] [data-permission]').count(),
      OPERATOR_PERMISSIONS.length,
      'an owner holds every permission',
    );

    // Locked, the console asks again; a recovery code opens it (and is used up).
    await page.getByTestId('admin-lock').click();
    await page.getByTestId('admin-second-factor').waitFor();
    await page.getByTestId('tab-recovery').click();
    await page.getByTestId('recovery-input').fill(codes[0]!);
    await page.getByTestId('recovery-submit').click();
    await page.getByTestId('admin-permissions').waitFor();
  });

  test('the owner names a finance operator; the audit trail lists it, filters it in the URL and exports CSV', async () => {
    const page = env.page;
    const other = `finance-${Date.now()}@example.com`;
    await registeredAccount(other);
    await env.ui.goto('/admin/operators');
    await page.getByTestId('operators-table').waitFor();
    await page.getByTestId('operator-email').fill(other);
    await page.getByTestId('operator-role').click();
    await page.getByRole('option', { name: /Finance|财务|財務/ }).click();
    await page.getByTestId('operator-add').click();
    await page.locator('[data-testid="operator-row-email"]', { hasText: other }).waitFor();

    await env.ui.goto('/admin/audit');
    await page.locator('[data-testid="audit-row-action"]', { hasText: 'operator.add' }).waitFor();
    await page.getByTestId('audit-filter-action').fill('operator.add');
    await page.getByTestId('audit-apply').click();
    await env.ui.waitForHash('/admin/audit?action=operator.add');
    await page.reload();
    await page.locator('[data-testid="audit-row-action"]', { hasText: 'operator.add' }).waitFor();
    assertEqual(await page.getByTestId('audit-row-action').count(), 1, 'the filter from the URL holds after a reload');
    const download = page.waitForEvent('download');
    await page.getByTestId('audit-export').click();
    const file = await (await download).path();
    const csv = await fs.readFile(file, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assertEqual(
      lines[0],
      'id,at,operator_id,operator_role,action,target_type,target_id,before,after,reason,request_id,ip',
      'the CSV header',
    );
    assertEqual(lines.length, 2, 'the export holds the filtered entry');
    assert(lines[1]!.includes(',operator.add,') && lines[1]!.includes(other), 'the entry names the action and the new operator');
  });

  test('every console page fits at 390 px and 1440 px in the three languages, and axe finds nothing serious', async () => {
    const problems: string[] = [];
    for (const lang of LANGS) {
      await env.ui.goto(PAGES[0]!);
      await env.ui.chooseLanguage(lang);
      for (const viewport of VIEWPORTS) {
        await env.page.setViewportSize(viewport);
        for (const route of PAGES) {
          await env.ui.goto(route);
          const where = `${route} ${lang} ${viewport.width}px`;
          // What the page itself shows, not a toast a step before it left.
          await dismissToasts(env.page);
          await waitForSettledPage(env.page).catch((e: Error) => problems.push(`${where}: ${e.message.split('\n')[0]}`));
          await env.page
            .waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, undefined, { timeout: 3000 })
            .catch(() => undefined);
          const overflow = await overflowReport(env.page);
          if (overflow.scrollWidth > overflow.innerWidth)
            problems.push(`${where}: scrollWidth ${overflow.scrollWidth} > ${overflow.innerWidth}`);
          for (const o of overflow.offenders) problems.push(`${where}: beyond the right edge: ${o}`);
          for (const v of await axeViolations(env.page)) problems.push(`${where}: ${v}`);
          if (viewport.width === 390 && lang === 'en') await shot(`admin${route.replace(/\//g, '-')}-390`);
        }
      }
    }
    await env.page.setViewportSize({ width: 1280, height: 800 });
    assertEqual(problems.join('\n'), '', 'console pages at both widths in three languages');
  });
}
