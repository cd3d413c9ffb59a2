import { execFileSync } from 'node:child_process';
import { generate } from 'otplib';
import { ERROR_MESSAGES } from '@polyvox/contracts';
import { apiMe } from '../lib/browser';
import { env } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits } from '../lib/layout-checks';
import { ROOT } from '../lib/server';
import { ensureRegistered } from './economy';

/**
 * Redemption codes end to end: the signed-in account is named a finance operator (`npm run admin -- operator add`),
 * passes TOTP in the console, makes a batch on the Codes page (shown once), redeems one code on the pricing page's
 * "Redeem a code" box, sees a wrong code refused in the page's language, finds who used the code in the batch's list,
 * revokes the batch; the Codes and Products pages fit 390 px and 1440 px; a credit pack added on the Products page is
 * on sale at once, and retired is not.
 */
export function adminCodesTests(): void {
  test('an operator makes codes, a user redeems one on the pricing page, the console shows who used it, revoked codes stop', async () => {
    const page = env.page;
    page.on('pageerror', (e) => console.log(`[admin-codes] page error: ${e.stack ?? e.message}`));
    page.on('console', (m) => m.type() === 'error' && console.log(`[admin-codes] console: ${m.text()}`));
    await ensureRegistered(page);
    const sid = await env.ui.waitForSid();
    const me = await apiMe(env.server.baseUrl, sid);
    assert(me.body.email, 'the account has an email');
    await page.setViewportSize({ width: 1440, height: 900 });
    // After admin-core the account is already an owner past its second factor; alone, it is named finance here.
    const status = await fetch(`${env.server.baseUrl}/admin/api/auth/status`, { headers: { 'x-sid': sid } });
    const elevated = status.status === 200 && ((await status.json()) as { elevated?: boolean }).elevated === true;
    if (!elevated) {
      execFileSync('npm', ['run', '--silent', 'admin', '--', 'operator', 'add', me.body.email!, '--role', 'finance'], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: env.server.dataDir },
      });
      await env.ui.goto('/admin');
      await page.getByTestId('totp-start').click();
      const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
      await page.getByTestId('recovery-kept').click();
      await page.getByTestId('totp-confirm-input').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) }));
      await page.getByTestId('totp-confirm-submit').click();
    } else {
      await env.ui.goto('/admin');
    }
    await page.getByTestId('admin-nav-codes').waitFor();

    await env.ui.goto('/admin/codes');
    await page.getByTestId('codes-create').click();
    await page.getByTestId('codes-form-name').fill('e2e spring');
    await page.getByTestId('codes-form-credits').fill('4321');
    await page.getByTestId('codes-form-count').fill('3');
    await page.getByTestId('codes-form-prefix').fill('E2E');
    await page.getByTestId('codes-form-reason').fill('browser test');
    const made = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/admin/api/codes/batches',
    );
    await page.getByTestId('codes-form-submit').click();
    const batchId = ((await (await made).json()) as { batch: { id: string } }).batch.id;
    const codes = (await page.getByTestId('codes-made').inputValue()).split('\n');
    assertEqual(codes.length, 3, 'three codes shown once');
    assert(
      codes.every((c) => /^E2E(-[A-Z0-9]{4}){4}$/.test(c)),
      `codes look right: ${codes.join(' ')}`,
    );
    await page.keyboard.press('Escape');
    await assertFits(page, 'codes page at 1440 px');

    await env.ui.goto('/app/pricing');
    await page.getByTestId('redeem-input').fill(codes[0]!.toLowerCase());
    await page.getByTestId('redeem-submit').click();
    const result = (await page.getByTestId('redeem-result').textContent()) ?? '';
    assert(/4[,.\s]?321/.test(result), `the result names the credits: ${result}`);
    await page.getByTestId('redeem-input').fill('E2E-AAAA-BBBB-CCCC-DDDD');
    await page.getByTestId('redeem-submit').click();
    const refused = (await page.getByTestId('redeem-error').textContent()) ?? '';
    const lang = await page.evaluate(() => document.documentElement.lang);
    const messages = ERROR_MESSAGES[lang as keyof typeof ERROR_MESSAGES] ?? ERROR_MESSAGES.en;
    assertEqual(refused, messages.CODE_NOT_REDEEMABLE, `the refusal in the page's language (${lang})`);
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFits(page, 'pricing page with the redeem box at 390 px');

    await env.ui.goto(`/admin/codes?batch=${batchId}`);
    await page.getByTestId('code-used-by').filter({ hasText: me.body.email! }).waitFor();
    await assertFits(page, 'codes page at 390 px');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('codes-revoke').first().click();
    await page.getByTestId('codes-revoke-reason').fill('browser test over');
    const revoked = page.waitForResponse((r) => new URL(r.url()).pathname === `/admin/api/codes/batches/${batchId}/revoke`);
    await page.getByTestId('codes-revoke-confirm').click();
    assertEqual((await revoked).status(), 200, 'the batch is revoked');
    const after = await fetch(`${env.server.baseUrl}/api/redeem`, {
      method: 'POST',
      headers: { 'x-sid': sid, 'content-type': 'application/json' },
      body: JSON.stringify({ code: codes[1] }),
    });
    assertEqual(after.status, 409, 'a revoked code is refused');

    await env.ui.goto('/admin/catalog?kind=plan');
    await page.getByTestId('catalog-table').waitFor();
    await assertFits(page, 'products page at 1440 px');
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFits(page, 'products page at 390 px');
    await page.setViewportSize({ width: 1440, height: 900 });

    // A new credit pack from the console is on sale at once; retired, it is not (the audit trail names both).
    const id = `credits_e2e_${Date.now().toString(36)}`;
    const onSale = async () =>
      ((await (await fetch(`${env.server.baseUrl}/products?kind=credits`)).json()) as { items: { id: string }[] }).items.map(
        (p) => p.id,
      );
    await env.ui.goto('/admin/catalog');
    await page.getByTestId('catalog-create').click();
    await page.getByTestId('catalog-create-id').fill(id);
    for (const [l, name] of [
      ['en', 'E2E pack'],
      ['zh-CN', '测试积分包'],
      ['zh-TW', '測試點數包'],
    ] as const)
      await page.getByTestId(`catalog-create-name-${l}`).fill(name);
    await page.getByTestId('catalog-create-cny').fill('12.5');
    await page.getByTestId('catalog-create-usd').fill('1.99');
    await page.getByTestId('catalog-create-credits').fill('12345');
    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/admin/api/catalog/products',
    );
    await page.getByTestId('catalog-create-save').click();
    assertEqual((await created).status(), 201, 'the pack is added');
    await page.getByTestId(`catalog-retire-${id}`).waitFor();
    assert((await onSale()).includes(id), 'the new pack is on sale');
    await page.getByTestId(`catalog-retire-${id}`).click();
    const retired = page.waitForResponse(
      (r) => r.request().method() === 'DELETE' && new URL(r.url()).pathname === `/admin/api/catalog/products/${id}`,
    );
    await page.getByTestId('catalog-retire-confirm').click();
    assertEqual((await retired).status(), 200, 'the pack is retired');
    await page.getByTestId(`catalog-retire-${id}`).waitFor({ state: 'detached' });
    assert(!(await onSale()).includes(id), 'the retired pack is no longer sold');
    const trail = (await (
      await fetch(`${env.server.baseUrl}/admin/api/audit?target_id=${id}&order=asc`, { headers: { 'x-sid': sid } })
    ).json()) as { items: { action: string }[] };
    assertEqual(trail.items.map((e) => e.action).join(','), 'product.create,product.retire', 'the trail names both');
  });
}
