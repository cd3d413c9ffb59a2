/**
 * The operator console's Moderation page (issue 31, point 4), as an owner who passed TOTP: a word added to the
 * operator's own list is in force at once (a synthesis carrying it, disguised, is refused with CONTENT_REFUSED in the
 * caller's language and charges nothing), the refusal is listed with its route and category, the word is removed and
 * the text passes again; the page fits 390 px and 1440 px in three languages.
 */
import { ERROR_MESSAGES } from '@polyvox/contracts';
import { env, LANGS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits, waitForSettledPage } from '../lib/layout-checks';
import { dismissToasts } from '../lib/speech';
import { adminApi as api, becomeOwner, openIn as open } from '../lib/admin';

const TITLE = { en: 'Moderation', 'zh-CN': '内容审核', 'zh-TW': '內容審核' } as const;

export function adminModerationTests(): void {
  test('a word added to the operator list refuses a synthesis at once, the refusal is listed, removing it lets the text pass', async () => {
    await becomeOwner();
    const page = env.page;
    await page.setViewportSize({ width: 1440, height: 900 });
    await open('/admin/moderation', 'en');
    await page.getByRole('heading', { name: TITLE.en, exact: true }).waitFor();
    await page.getByTestId('moderation-term').fill('Quxblorf');
    await page.getByTestId('moderation-category').fill('brands');
    await page.getByTestId('moderation-add').click();
    await page.getByTestId('moderation-terms').getByText('Quxblorf').waitFor();

    const before = (await api('GET', '/accounts/me')).body.vip.credits as number;
    const text = 'Our new Q-U-X-B-L-O-R-F is here.';
    const refused = await api('POST', '/tts', { text, voice_id: 'voice_espeak.en-us' }, 'zh-CN');
    assertEqual(refused.status, 422, 'refused');
    assertEqual(refused.body.error.code, 'CONTENT_REFUSED', 'the code');
    assertEqual(refused.body.error.message, ERROR_MESSAGES['zh-CN'].CONTENT_REFUSED, 'in the caller’s language');
    assertEqual((await api('GET', '/accounts/me')).body.vip.credits, before, 'nothing charged');

    await page.reload();
    const hits = page.getByTestId('moderation-hits');
    await hits.getByText(text).waitFor();
    assert((await hits.innerText()).includes('brands'), 'the hit names its category for the operator');
    await dismissToasts(page);
    const id = ((await api('GET', '/admin/api/moderation/terms')).body.items as { id: string; term: string }[]).find(
      (t) => t.term === 'Quxblorf',
    )!.id;
    await page.getByTestId(`moderation-remove-${id}`).click();
    await page.getByTestId('moderation-terms').getByText('Quxblorf').waitFor({ state: 'detached' });
    const passed = await api('POST', '/tts', { text, voice_id: 'voice_espeak.en-us' });
    assertEqual(passed.status, 200, 'the text passes once the word is removed');

    for (const lang of LANGS) {
      await open('/admin/moderation', lang);
      await page.getByRole('heading', { name: TITLE[lang], exact: true }).waitFor();
      await waitForSettledPage(page);
      for (const width of [390, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        await assertFits(page, `moderation page, ${lang}, ${width} px`);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });
}
