import { errorMessage } from '@polyvox/contracts';
import { Console, SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { env, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';

/** A request of the console's account, with its session. */
async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const sid = (await env.ui.storage(SID_KEY)) ?? '';
  const res = await fetch(`${env.server.baseUrl}${path}`, {
    method,
    headers: { 'x-sid': sid, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** POST /tts with an API key, as a program would. */
function speakWithKey(secret: string, text: string): Promise<Response> {
  return fetch(`${env.server.baseUrl}/tts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, voice_id: 'voice_flite.slt' }),
  });
}

/** Runs the keys page's curl sample as a program would: its URL, headers and body, with `secret` for the placeholder. */
async function runSample(command: string, secret: string): Promise<Response> {
  const url = /curl (\S+)/.exec(command)![1]!;
  const headers = Object.fromEntries(
    [...command.matchAll(/-H "([^:]+): ([^"]*)"/g)].map(([, name, value]) => [name!, value!.replace('YOUR_API_KEY', secret)]),
  );
  const body = /-d '(.*)'/.exec(command)![1]!.replaceAll("'\\''", "'");
  return fetch(url, { method: 'POST', headers, body });
}

/** Buys the first product of `kind` through the sandbox by API and settles it with `outcome`: the order's id. */
async function sandboxOrder(kind: 'plan' | 'credits', outcome: 'success' | 'fail', plan?: string): Promise<string> {
  const { body: products } = await api<{ items: { id: string; plan: string | null }[] }>('GET', `/products?kind=${kind}`);
  const product = products.items.find((p) => !plan || p.plan === plan)!;
  const { status, body: order } = await api<{ id: string }>('POST', '/accounts/me/orders', { product: product.id });
  assertEqual(status, 201, 'POST /accounts/me/orders');
  const returnUrl = `${env.server.baseUrl}/#/app/orders/${order.id}/result`;
  const paid = await api<{ pay_url: string }>('POST', `/accounts/me/orders/${order.id}/payment/sandbox?pf=web`, {
    pay_platform: 'web',
    return_url: returnUrl,
  });
  assertEqual(paid.status, 200, 'POST …/payment/sandbox');
  const token = new URL(paid.body.pay_url, env.server.baseUrl).searchParams.get('token') ?? '';
  const done = await fetch(`${env.server.baseUrl}/pay/sandbox/${order.id}/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, outcome }),
    redirect: 'manual',
  });
  assertEqual(done.status, 303, 'the sandbox settles the order');
  return order.id;
}

/** Opens the home page in a fresh browser set to `locale`, nothing stored: what a first visit looks like. */
async function firstVisit<T>(locale: string, viewport: { width: number; height: number }, work: (ui: Console) => Promise<T>) {
  const context = await env.browser.newContext({ viewport, locale });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(HANG_GUARD_MS);
    const ui = new Console(page, env.server.baseUrl);
    await ui.goto('/');
    await page.getByTestId('language-menu').waitFor();
    return await work(ui);
  } finally {
    await context.close();
  }
}

/**
 * The console's rough edges a review in Chromium found (issue 29, point 10): the language menu and the first
 * language, the phone's tables and voice picker, the API keys page and its code sample, and the polish list.
 */
export function polishTests(): void {
  test('a first visit opens in the browser’s language when the console speaks it, zh-CN otherwise', async () => {
    const expected = [
      ['en-US', 'en-US', 'en'],
      ['en-GB', 'en-US', 'en'],
      ['zh-TW', 'zh-HK', 'zh-TW'],
      ['zh-CN', 'zh-CN', 'zh-CN'],
      ['fr-FR', 'zh-CN', 'zh-CN'],
    ] as const;
    for (const [browser, menu, html] of expected) {
      await firstVisit(browser, { width: 1280, height: 800 }, async (ui) => {
        await ui.page.waitForFunction(
          (c) => document.querySelector('[data-testid="language-menu"]')?.getAttribute('data-locale') === c,
          menu,
        );
        assertEqual(await ui.page.evaluate(() => document.documentElement.lang), html, `<html lang> for a ${browser} browser`);
      });
    }
  });

  test('the language menu says which languages show an English interface before one is picked, and names each', async () => {
    await firstVisit('zh-CN', { width: 390, height: 844 }, async (ui) => {
      const page = ui.page;
      // On a phone the button shows the flag alone; its accessible name names the language.
      const label = await page.getByTestId('language-menu').getAttribute('aria-label');
      assert(label?.startsWith('简体中文'), `the phone button's name names the language (${label})`);
      await page.getByTestId('language-menu').click();
      const note = (code: string) => page.getByTestId(`lang-option-${code}`).getByTestId('lang-option-note').innerText();
      // Each flag is labelled with its language, in the interface's language.
      assertEqual(await note('zh-HK'), '繁体中文', '繁體中文 (Hong Kong’s flag) is labelled Traditional Chinese');
      assertEqual(await note('en-US'), '英语', 'English (the US flag) is labelled English');
      assertEqual(await note('pt'), '葡萄牙语 · 界面为英文', 'Português says it shows an English interface');
      const fallbacks = await page.locator('[data-testid^="lang-option-"][data-fallback="en"]').count();
      assertEqual(fallbacks, 37, 'the 37 locales without a translation are marked');
      for (const code of ['ja', 'de', 'ar']) {
        const text = await note(code);
        assert(text.endsWith('界面为英文'), `${code} says before it is picked that the interface is in English (${text})`);
      }
      for (const code of ['zh-CN', 'zh-HK', 'en-US']) {
        assert(!(await note(code)).includes('英文'), `${code} is shown in its own translation`);
      }
      // No bare "EN" badge is left to guess at.
      const list = await page.getByTestId('language-list').innerText();
      assert(!/(^|\s)EN(\s|$)/.test(list), 'no bare EN marks');
      await ui.chooseLanguage('en');
      await page.getByTestId('language-menu').click();
      assertEqual(await note('zh-HK'), 'Traditional Chinese', 'in English: Traditional Chinese');
      assertEqual(await note('ja'), 'Japanese · interface in English', 'in English: Japanese, English interface');
      await page.keyboard.press('Escape');
    });
  });

  test('the keys page shows how to call the API at any time, with a voice of the interface’s language', async () => {
    const page = env.page;
    await ensureSignedIn();
    const { body: key } = await api<{ id: string; key: string }>('PUT', '/api/authorization', { name: 'polish sample' });
    try {
      const voices: Record<string, string> = {};
      for (const lang of ['zh-CN', 'en'] as const) {
        await env.ui.chooseLanguage(lang);
        await env.ui.goto('/app/api-keys');
        const code = page.getByTestId('key-sample-code');
        await page.waitForFunction(
          (l) => document.querySelector('[data-testid="key-sample-code"]')?.textContent?.includes(`Accept-Language: ${l}`),
          lang,
        );
        const command = await code.innerText();
        assert(command.includes('YOUR_API_KEY'), `the sample holds a placeholder for the secret (${lang})`);
        assert(!command.includes('alloy'), `the sample names a voice of the interface's language, not alloy (${lang})`);
        voices[lang] = (await page.getByTestId('key-sample').getAttribute('data-voice')) ?? '';
        // The sample works as written once the placeholder is a key, and speaks the interface's language.
        const res = await runSample(command, key.key);
        assertEqual(res.status, 200, `the ${lang} sample runs (${res.status === 200 ? '' : await res.text()})`);
        assertEqual(res.headers.get('content-type'), 'audio/mpeg', `the ${lang} sample returns audio`);
        // A refusal comes back in the reader's language: the sample's Accept-Language asks for it.
        // zh-CN: OpenAI's alloy (English) with the Chinese text; en: a Chinese text for the English voice.
        const wrong =
          lang === 'en'
            ? command.replace(/"input":"[^"]*"/, '"input":"你好，欢迎使用。"')
            : command.replace(voices[lang]!, 'alloy');
        const refused = await runSample(wrong, key.key);
        const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
        assertEqual(error.code, 'LANGUAGE_UNSUPPORTED', `a voice of another language refuses the ${lang} text`);
        assertEqual(error.message, errorMessage('LANGUAGE_UNSUPPORTED', lang), `the refusal is in ${lang}`);
      }
      assert(voices['zh-CN'] !== voices.en, `the voice follows the language (${voices['zh-CN']}, ${voices.en})`);
    } finally {
      await api('DELETE', `/api/authorization?id=${key.id}`);
    }
  });

  test('a limit lowered under what a key spent is confirmed first, and the row says the key is exhausted', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    const { body: key } = await api<{ id: string; key: string }>('PUT', '/api/authorization', { name: 'polish limit' });
    try {
      const tts = await speakWithKey(key.key, 'Hello from a key with a limit.');
      assertEqual(tts.status, 200, 'the key is used once');
      const spent = Number(tts.headers.get('x-credits-charged'));
      assert(spent > 1, `the call cost more than one credit (${spent})`);
      await env.ui.goto('/app/api-keys');
      // The key was made through the API: a page that listed the keys before (an earlier flow's) shows its cached list.
      await page.reload();
      const row = page.locator(`[data-testid="key-row"][data-key-id="${key.id}"]`);
      await row.waitFor();
      assertEqual(await row.getByTestId('key-row-exhausted').count(), 0, 'a key with no limit is not exhausted');
      const patches: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'PATCH' && new URL(r.url()).pathname === '/api/authorization') patches.push(r.url());
      });
      await row.getByTestId('key-change-limit').click();
      await page.getByTestId('key-limit').fill('1');
      await page.getByTestId('key-edit-submit').click();
      const warning = page.getByTestId('key-limit-below-used');
      await warning.waitFor();
      assert((await warning.innerText()).includes(String(spent)), 'the warning names what the key spent');
      assertEqual(patches.length, 0, 'nothing is saved before the user confirms');
      await page.getByTestId('key-edit-submit').click();
      await page.getByTestId('key-edit-dialog').waitFor({ state: 'detached' });
      await row.getByTestId('key-row-exhausted').waitFor();
      assertEqual(await row.getAttribute('data-exhausted'), 'true', 'the row marks the key exhausted');
      const refused = await speakWithKey(key.key, 'Hello again.');
      assertEqual(refused.status, 402, 'the exhausted key is refused, as its row says');
    } finally {
      await api('DELETE', `/api/authorization?id=${key.id}`);
    }
  });

  test('Escape after copying a new key closes its dialog without asking whether it was saved', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.baseUrl });
    await env.ui.goto('/app/api-keys?create=1');
    await page.getByTestId('key-name').fill('polish copied');
    await page.getByTestId('key-create-submit').click();
    await page.getByTestId('key-copy').click();
    await page.getByTestId('key-copied').waitFor();
    // The sample in the dialog holds the new secret.
    const secret = await page.getByTestId('key-secret').inputValue();
    await page.waitForFunction(
      (k) =>
        document
          .querySelector(
            '[data-testid="key-dialog"] [data-testid="key-sample-code"], [data-testid="key-created"] [data-testid="key-sample-code"]',
          )
          ?.textContent?.includes(k),
      secret,
    );
    await page.keyboard.press('Escape');
    await page.getByTestId('key-created').waitFor({ state: 'detached' });
    assertEqual(await page.getByTestId('key-close-warning').count(), 0, 'no question once the key was copied');
    const row = page.locator('[data-testid="key-row"][data-name="polish copied"]');
    await row.waitFor();
    await api('DELETE', `/api/authorization?id=${await row.getAttribute('data-key-id')}`);
  });

  test('on a phone, the orders, usage and keys tables say they scroll sideways; at 1440 px they need not', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('zh-CN');
    try {
      for (const [width, hinted] of [
        [390, true],
        [1440, false],
      ] as const) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        for (const path of ['/app/orders', '/app/usage', '/app/api-keys']) {
          await env.ui.goto(path);
          await page.locator('table').first().waitFor();
          const hint = page.getByTestId('table-scroll-hint').first();
          if (hinted) {
            await hint.waitFor();
            assertEqual(await hint.innerText(), '左右滑动可查看全部列', `${path} at ${width} px says it scrolls`);
          } else {
            assertEqual(await page.getByTestId('table-scroll-hint').count(), 0, `${path} at ${width} px shows no hint`);
          }
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  test('on a phone, the voice picker starts a new page at its top and its pager keeps to one line', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('zh-CN');
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await env.ui.goto('/app/playground');
      await page.getByTestId('playground-change-voice').click();
      const picker = page.getByTestId('voice-picker');
      await picker.waitFor();
      const rows = picker.getByTestId('voice-row');
      await rows.nth(19).waitFor();
      const pager = picker.getByTestId('voice-pagination');
      await pager.scrollIntoViewIfNeeded();
      const tops = await pager.locator('button').evaluateAll((buttons) => buttons.map((b) => b.getBoundingClientRect().top));
      assert(tops.length > 3 && new Set(tops.map(Math.round)).size === 1, `the pager is one line (${tops.join(', ')})`);
      const first = await rows.first().getAttribute('data-voice-id');
      await pager.getByRole('button', { name: '2', exact: true }).click();
      await page.waitForFunction(
        (id) =>
          document.querySelector('[data-testid="voice-picker"] [data-testid="voice-row"]')?.getAttribute('data-voice-id') !== id,
        first,
      );
      // The first voice of the new page is in view, not the pager at the bottom.
      await page.waitForFunction(() => {
        const row = document.querySelector('[data-testid="voice-picker"] [data-testid="voice-row"]');
        const box = row?.getBoundingClientRect();
        return box !== undefined && box.top >= 0 && box.top < window.innerHeight;
      });
      await page.keyboard.press('Escape');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  test('on a phone, the preview history keeps “版本 1” on one line', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('zh-CN');
    const made = await api<{ id: string }>('POST', '/voice/previews', {
      type: 'prompt',
      model: 'flite',
      language: 'en',
      preview_text: 'A short preview for the history.',
      prompt: 'a calm voice, slow',
    });
    assertEqual(made.status, 201, 'a preview is made');
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await env.ui.goto('/app/text-to-voice');
      const version = page.getByTestId('history-version').first();
      await version.waitFor();
      const lines = await version.evaluate((el) => {
        const height = el.getBoundingClientRect().height;
        return Math.round(height / parseFloat(getComputedStyle(el).lineHeight));
      });
      assertEqual(lines, 1, `“${await version.innerText()}” is on one line`);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  test('a wrong sign-in code marks the code field with the server’s words', async () => {
    await firstVisit('zh-CN', { width: 1280, height: 800 }, async (ui) => {
      const page = ui.page;
      await ui.waitForSid();
      await ui.openSignInFromHeader();
      await page.getByTestId('signin-email').fill(`polish-wrong-code-${Date.now()}@example.com`);
      await page.getByTestId('signin-code').fill('000000');
      await page.getByTestId('signin-agree').check();
      const answered = page.waitForResponse((r) => r.request().method() !== 'GET' && r.status() >= 400);
      await page.getByTestId('signin-submit').click();
      const error = ((await (await answered).json()) as { error: { code: string; message: string } }).error;
      assert(['SIGN_IN_FAILED', 'CAPTCHA_INCORRECT'].includes(error.code), `the server refuses the code (${error.code})`);
      const code = page.getByTestId('signin-code');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="signin-code"]')?.getAttribute('aria-invalid') === 'true',
      );
      const described = await code.getAttribute('aria-describedby');
      const shown = await page.locator(`[id="${described?.split(' ').find((id) => id.includes('error'))}"]`).innerText();
      assertEqual(shown, error.message, 'the code field shows the server’s message');
      // Typing again clears the mark.
      await code.fill('12345');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="signin-code"]')?.getAttribute('aria-invalid') !== 'true',
      );
    });
  });

  test('the profile shows the day the plan ends, in the interface’s language; the free plan has none', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    const me = async () => (await api<{ vip: { level: string; expire: string | null } }>('GET', '/accounts/me')).body.vip;
    const end = page.getByTestId('profile-plan-end');
    if ((await me()).level === 'free') {
      await env.ui.goto('/app/my-profile');
      await end.getByText('No end date').waitFor();
    }
    await sandboxOrder('plan', 'success', 'monthly');
    const vip = await me();
    assert(vip.level !== 'free' && vip.expire, `a paid plan with an end: ${JSON.stringify(vip)}`);
    await page.reload(); // the console reads the account again
    for (const [lang, word] of [
      ['en', /\b20\d\d\b/],
      ['zh-CN', /年/],
      ['zh-TW', /年/],
    ] as const) {
      await env.ui.goto('/app/my-profile');
      await env.ui.chooseLanguage(lang);
      const expected = await page.evaluate(
        ([l, iso]) => new Intl.DateTimeFormat(l, { year: 'numeric', month: 'short', day: 'numeric' }).format(new Date(iso!)),
        [lang, vip.expire] as const,
      );
      await end.getByText(expected, { exact: true }).waitFor();
      assert(word.test(expected), `the ${lang} date reads as a ${lang} date: ${expected}`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await env.ui.goto('/app/my-profile');
      const box = (await end.boundingBox())!;
      assert(box.x >= 0 && box.x + box.width <= 390, `at 390 px the end date fits the screen: ${JSON.stringify(box)}`);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await env.ui.chooseLanguage('en');
    }
  });

  test('a failed payment’s page has the retry its text promises: a new order of the same product, paid', async () => {
    const page = env.page;
    await ensureSignedIn();
    const failed = await sandboxOrder('credits', 'fail');
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await env.ui.goto(`/app/orders/${failed}/result`);
      await page.locator('[data-testid="order-result"][data-status="failed"]').waitFor();
      const retry = page.getByTestId('order-result-retry');
      await retry.waitFor();
      const box = (await retry.boundingBox())!;
      assert(box.x >= 0 && box.x + box.width <= width, `at ${width} px the retry button is on screen`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    const { body: before } = await api<{ items: { id: string; product: string }[] }>('GET', '/api/accounts/me/orders?limit=100');
    const product = before.items.find((o) => o.id === failed)!.product;
    await page.getByTestId('order-result-retry').click();
    const popupPromise = page.context().waitForEvent('page');
    await page.getByTestId('checkout-pay').click();
    const popup = await popupPromise;
    await popup.waitForURL(/\/pay\/sandbox\//);
    await popup.locator('[data-outcome="success"], button[name="outcome"][value="success"]').first().click();
    await popup.waitForURL(/#\/app\/orders\/[^/]+\/result$/);
    await popup.close();
    await page.locator('[data-testid="order-result"][data-status="successful"]').waitFor();
    const paid = decodeURIComponent(/orders\/([^/]+)\/result/.exec(page.url())![1]!);
    assert(paid !== failed, 'a new order was placed');
    const { body: after } = await api<{ items: { id: string; product: string; status: string }[] }>(
      'GET',
      '/api/accounts/me/orders?limit=100',
    );
    const order = after.items.find((o) => o.id === paid);
    assertEqual(order?.product, product, 'the same product');
    assertEqual(order?.status, 'successful', 'the new order is paid');
    assertEqual(after.items.find((o) => o.id === failed)?.status, 'failed', 'the failed order stays failed');
  });

  test('a toast covers neither the header nor the page’s title and buttons', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('zh-CN');
    const { body: key } = await api<{ id: string }>('PUT', '/api/authorization', { name: 'polish toast' });
    try {
      for (const width of [390, 1440]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await env.ui.goto('/app/api-keys');
        const row = page.locator(`[data-testid="key-row"][data-key-id="${key.id}"]`);
        await row.getByTestId('key-rename').click();
        await page.getByTestId('key-name').fill(`polish toast ${width}`);
        await page.getByTestId('key-edit-submit').click();
        const toast = page.locator('.mantine-Notification-root').first();
        await toast.waitFor();
        const box = (await toast.boundingBox())!;
        for (const selector of ['header', '[data-testid="page-title"]', '[data-testid="key-create"]']) {
          const other = await page.locator(selector).first().boundingBox();
          if (!other) continue;
          const overlaps =
            box.x < other.x + other.width &&
            other.x < box.x + box.width &&
            box.y < other.y + other.height &&
            other.y < box.y + box.height;
          assert(!overlaps, `at ${width} px the toast does not cover ${selector}`);
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await api('DELETE', `/api/authorization?id=${key.id}`);
    }
  });
}
