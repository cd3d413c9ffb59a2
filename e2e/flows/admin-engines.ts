/**
 * The operator console's Engines and Settings pages (issue 30, points 8 and 9), as an owner who passed TOTP:
 * a remote provider added (its key never shown again), tested against a local server speaking OpenAI's wire
 * protocol, enabled, edited; the models' catalogue with its licences and the non-commercial confirmation; a setting
 * changed and in force; both pages in three languages at 390 px and 1440 px with no overflow.
 */
import { env, LANGS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits, waitForSettledPage } from '../lib/layout-checks';
import { dismissToasts } from '../lib/speech';
import { openAIServer, type ProviderServer } from '../../packages/speech/test/support/provider-servers';
import { adminApi as api, becomeOwner, openIn as open } from '../lib/admin';

const KEY = 'good';
const TITLES = {
  engines: { en: 'Engines, models and providers', 'zh-CN': '引擎、模型与服务商', 'zh-TW': '引擎、模型與服務商' },
  settings: { en: 'Settings', 'zh-CN': '设置', 'zh-TW': '設定' },
} as const;

export function adminEnginesTests(): void {
  let fake: ProviderServer;
  test.beforeAll(async () => {
    fake = await openAIServer();
  });
  test.afterAll(async () => {
    await fake?.close();
  });

  test('a provider is added, its key never shown again, tested, enabled and edited; the catalogue shows licences', async () => {
    await becomeOwner();
    const page = env.page;
    await open('/admin/engines', 'en');
    await page.getByRole('heading', { name: TITLES.engines.en }).waitFor();
    await page.getByTestId('admin-engines').getByTestId('engine-flite').waitFor();

    await page.getByTestId('provider-add').click();
    await page.getByTestId('provider-name').fill('Local OpenAI');
    await page.getByTestId('provider-url').fill(fake.url);
    await page.getByTestId('provider-model').fill('tts-1');
    await page.getByTestId('provider-key').fill(KEY);
    await page.getByTestId('provider-save').click();
    const card = page.getByTestId('provider-Local OpenAI');
    await card.waitFor();
    assert(!(await page.getByTestId('admin-providers').innerText()).includes(`"${KEY}"`), 'the key is not shown');
    const listed = await api('GET', '/admin/api/providers');
    assert(!JSON.stringify(listed.body).includes(`"${KEY}"`), 'no route answers the key');

    await card.getByTestId('provider-test').click();
    await page.waitForFunction(
      () =>
        /Test passed/.test(
          document.querySelector('[data-testid="provider-Local OpenAI"] [data-testid="provider-last-test"]')?.textContent ?? '',
        ),
      undefined,
      { timeout: 30_000 },
    );
    assert(
      fake.requests.some((r) => r.path === '/v1/audio/speech' && r.headers.authorization === `Bearer ${KEY}`),
      'the test called the provider with its key',
    );

    // The test's toast sits at the bottom right, over the switch: closed first, as a person would.
    await dismissToasts(page);
    await card.getByTestId('provider-enabled').click({ force: true });
    // Enabled: its voices join the library within seconds, and a synthesis speaks through it.
    const deadline = Date.now() + 30_000;
    let voices: { id: string }[] = [];
    while (Date.now() < deadline) {
      voices = (await api('GET', '/voice?page_size=100')).body.items;
      if (voices.some((v) => v.id === 'voice_openai.alloy')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert(
      voices.some((v) => v.id === 'voice_openai.alloy'),
      'the enabled provider adds its voices',
    );

    await card.getByTestId('provider-edit').click();
    await page.getByTestId('provider-name').fill('Local OpenAI 2');
    await page.getByTestId('provider-save').click();
    await page.getByTestId('provider-Local OpenAI 2').waitFor();

    const catalogue = page.getByTestId('admin-models');
    await catalogue.getByText('Not for commercial use').first().waitFor();
    const nonCommercial = (await api('GET', '/admin/api/models')).body.catalogue.find((m: any) => !m.licence.commercial);
    if (nonCommercial) {
      await page.getByTestId(`catalogue-${nonCommercial.name}`).getByRole('button').click();
      const check = page.getByTestId('confirm-non-commercial');
      await check.waitFor();
      await page.keyboard.press('Escape');
    }
  });

  test('a setting is changed in the console and in force; an invalid one is refused naming the rule', async () => {
    await becomeOwner();
    const page = env.page;
    await open('/admin/settings', 'en');
    await page.getByRole('heading', { name: TITLES.settings.en }).waitFor();
    const input = page.getByTestId('setting-VERIFY_PER_MINUTE');
    await input.fill('33');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings-version').waitFor();
    assertEqual((await api('GET', '/admin/api/settings')).body.values.VERIFY_PER_MINUTE, 33, 'saved');
    await dismissToasts(page);
    await page.locator('.mantine-Notification-root').first().waitFor({ state: 'detached' });
    await input.fill('0');
    await page.getByTestId('settings-save').click();
    await page.getByText('Invalid value for VERIFY_PER_MINUTE: must be at least 1').waitFor();
    assertEqual((await api('GET', '/admin/api/settings')).body.values.VERIFY_PER_MINUTE, 33, 'refused');

    // Another operator saves meanwhile: this page's change, prepared from the older version, is refused (409), the
    // page says so and shows the settings as they are now.
    assertEqual((await api('PATCH', '/admin/api/settings', { VERIFY_PER_MINUTE: 44 })).status, 200, 'saved elsewhere');
    await dismissToasts(page);
    await input.fill('35');
    const stale = page.waitForResponse(
      (r) => r.request().method() === 'PATCH' && new URL(r.url()).pathname === '/admin/api/settings',
    );
    await page.getByTestId('settings-save').click();
    assertEqual((await stale).status(), 409, 'a write over a newer version is refused');
    await page.getByTestId('settings-conflict').waitFor();
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="setting-VERIFY_PER_MINUTE"]') as HTMLInputElement | null)?.value === '44',
    );
    assertEqual((await api('GET', '/admin/api/settings')).body.values.VERIFY_PER_MINUTE, 44, 'the other change stands');
  });

  test('both pages in three languages at 390 px and 1440 px: their title, no overflow', async () => {
    await becomeOwner();
    const page = env.page;
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(viewport);
      for (const lang of LANGS) {
        for (const [route, titles] of [
          ['/admin/engines', TITLES.engines],
          ['/admin/settings', TITLES.settings],
        ] as const) {
          await open(route, lang);
          await page.getByRole('heading', { name: titles[lang] }).waitFor();
          await waitForSettledPage(page);
          await assertFits(page, `${route} ${lang} ${viewport.width}px`);
        }
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => localStorage.setItem('polyvox.lang', 'en'));
  });
}
