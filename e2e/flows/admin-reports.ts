import { execFileSync } from 'node:child_process';
import { generate } from 'otplib';
import { apiMe } from '../lib/browser';
import { env } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits } from '../lib/layout-checks';
import { mailsTo } from '../lib/outbox';
import { givePlan } from '../lib/plan';
import { ROOT } from '../lib/server';
import { dismissToasts } from '../lib/speech';
import { ensureRegistered } from './economy';

/**
 * A complaint end to end: the console's footer leads to "Report misuse" (Check audio links there too); the form
 * reports one of the account's own voices (a saved mix) at 390 px; the report waits in the operator's queue, whose
 * takedown makes the voice answer 404; the reporter's outcome mail reaches the outbox. The report page and the queue
 * fit 390 px and 1440 px.
 */
export function adminReportsTests(): void {
  test('footer → report form → operator queue → takedown: the voice answers 404 and the reporter hears', async () => {
    const page = env.page;
    page.on('pageerror', (e) => console.log(`[admin-reports] page error: ${e.stack ?? e.message}`));
    await ensureRegistered(page);
    const sid = await env.ui.waitForSid();
    const me = await apiMe(env.server.baseUrl, sid);
    assert(me.body.email, 'the account has an email');
    await givePlan();
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${env.server.baseUrl}${path}`, {
        method,
        headers: { 'x-sid': sid, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    // The voice to report: a saved mix of the account's own.
    const made = await api('PUT', '/voice', {
      type: 'mix',
      name: 'Reported in e2e',
      model: 'espeak-ng',
      mix: [{ voice_id: 'voice_espeak.en-us', weight: 1 }],
    });
    assertEqual(made.status, 201, 'the mix is saved');
    const voiceId = ((await made.json()) as { id: string }).id;

    // Check audio links to the form; every console page's footer does too.
    await page.setViewportSize({ width: 390, height: 844 });
    await env.ui.goto('/app/check');
    await page.getByTestId('check-report').waitFor();
    await env.ui.goto('/app/dashboard');
    await dismissToasts(page);
    await page.getByTestId('footer-report').click();
    await page.getByTestId('report-page').waitFor();
    assert((await env.ui.hash()).startsWith('#/app/report'), 'the footer leads to the report form');
    await assertFits(page, 'report form at 390 px');

    const contact = `reporter-${Date.now()}@example.com`;
    await page.getByTestId('report-kind').locator('label').nth(2).click();
    await page.getByTestId('report-voice').fill(voiceId);
    await page.getByTestId('report-reason').click();
    await page.getByRole('option').first().click();
    await page.getByTestId('report-details').fill('Someone uses this voice to pretend to be me.');
    await page.getByTestId('report-contact').fill(contact);
    await page.getByTestId('report-consent').check();
    await dismissToasts(page);
    await page.getByTestId('report-submit').click();
    const sent = page.getByTestId('report-sent');
    await sent.waitFor();
    const reportId = (await sent.getAttribute('data-id'))!;
    assert(/^rpt_/.test(reportId), `the report has an id: ${reportId}`);
    await page.setViewportSize({ width: 1440, height: 900 });
    await assertFits(page, 'report sent at 1440 px');

    // The operator: after admin-core the account is an owner past its second factor; alone, it is named support here.
    const status = await fetch(`${env.server.baseUrl}/admin/api/auth/status`, { headers: { 'x-sid': sid } });
    const elevated = status.status === 200 && ((await status.json()) as { elevated?: boolean }).elevated === true;
    if (!elevated) {
      execFileSync('npm', ['run', '--silent', 'admin', '--', 'operator', 'add', me.body.email!, '--role', 'support'], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: env.server.dataDir },
      });
      await env.ui.goto('/admin');
      await page.getByTestId('totp-start').click();
      const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
      await page.getByTestId('recovery-kept').click();
      await page.getByTestId('totp-confirm-input').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) }));
      await page.getByTestId('totp-confirm-submit').click();
    } else await env.ui.goto('/admin');
    await page.getByTestId('admin-nav-reports').waitFor();

    await env.ui.goto('/admin/reports');
    const card = page.locator(`[data-testid="report-card"][data-id="${reportId}"]`);
    await card.waitFor();
    assert(((await card.getByTestId('report-voice').textContent()) ?? '').includes(voiceId), 'the card names the voice');
    await assertFits(page, 'reports queue at 1440 px');
    await dismissToasts(page);
    await card.getByTestId('report-takedown').click();
    await page.getByTestId('report-action-reason').fill('impersonation confirmed in e2e');
    const done = page.waitForResponse(
      (r) => r.request().method() === 'POST' && r.url().includes(`/admin/api/reports/${reportId}/takedown`),
    );
    await page.getByTestId('report-action-confirm').click();
    assertEqual((await done).status(), 200, 'the takedown is done');

    // Taken down everywhere: the voice answers 404; the reporter's outcome mail is in the outbox.
    assertEqual((await api('GET', `/voice?id=${voiceId}`)).status, 404, 'the voice answers 404');
    assertEqual((await api('POST', '/tts', { text: 'Hello there.', voice_id: voiceId })).status, 404, 'it no longer speaks');
    assert((await mailsTo(env.server.outbox, contact)).length > 0, 'the reporter is told the outcome');
    await env.ui.goto('/admin/reports?status=actioned');
    await page.locator(`[data-testid="report-card"][data-id="${reportId}"]`).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFits(page, 'reports queue at 390 px');
  });
}
