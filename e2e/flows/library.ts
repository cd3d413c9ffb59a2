import fs from 'node:fs';
import path from 'node:path';
import { writeTinyKokoro } from '../../packages/speech/test/support/tiny-models.ts';
import { Console, menuCode } from '../lib/browser';
import { env, shot } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { audioState, chooseOption, waitForPlayback, waitForRowsOfModel } from '../lib/speech';

/** The voices and models pages, and how the console loads the model configuration. */
export function libraryTests(): void {
  test('the voices page filters by model, pages by 20, plays one preview at a time, and hands a voice to the playground', async () => {
    const page = env.page;
    await env.ui.goto('/app/voices');
    const total = Number(await page.locator('[data-testid="voice-total"][data-total]').getAttribute('data-total'));
    assert(total >= 500, `the library has at least 500 voices (${total})`);
    assertEqual(await page.locator('[data-testid="voice-row"]').count(), 20, '20 voices a page');
    await page.getByTestId('voice-pagination').getByRole('button', { name: '2', exact: true }).click();
    await env.ui.waitForHash('/app/voices?page=2');

    await chooseOption(page, page.getByTestId('filter-model'), 'Flite');
    await env.ui.waitForHash('/app/voices?model=flite');
    const rows = await waitForRowsOfModel(page, '[data-testid="voices-page"]', 'flite');
    await page.locator('[data-testid="voice-total"][data-total="5"]').waitFor();
    assertEqual(rows, 5, 'the five Flite voices');

    await chooseOption(page, page.getByTestId('filter-gender'), 'Female');
    await env.ui.waitForHash('/app/voices?model=flite&gender=female');
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('[data-testid="voice-row"]')).every((r) => r.getAttribute('data-gender') === 'female'),
    );

    await page.getByTestId('filter-clear').click();
    await env.ui.waitForHash('/app/voices');
    // The route changes before React shows it (navigations are transitions): act on what is shown.
    await page.getByTestId('filter-clear').waitFor({ state: 'detached' });
    await page.waitForFunction(
      () => (document.querySelector('input[data-testid="filter-gender"]') as HTMLInputElement | null)?.value === '',
    );
    await chooseOption(page, page.getByTestId('filter-model'), 'Flite');
    await waitForRowsOfModel(page, '[data-testid="voices-page"]', 'flite');
    const first = page.locator('[data-testid="voice-row"]').nth(0);
    const second = page.locator('[data-testid="voice-row"]').nth(1);
    await first.getByTestId('voice-preview').click();
    await waitForPlayback(page, 'preview-audio', 0.2);
    const firstId = await first.getAttribute('data-voice-id');
    assert((await audioState(page, 'preview-audio')).src.endsWith(`/voice/preview/${firstId}.mp3`), 'the first preview plays');
    await first.locator('[data-testid="voice-preview"][data-state="playing"]').waitFor();
    await shot('voices-en');

    await second.getByTestId('voice-preview').click();
    const secondId = await second.getAttribute('data-voice-id');
    await page.waitForFunction(
      (id) =>
        (document.querySelector('[data-testid="preview-audio"]') as HTMLAudioElement | null)?.currentSrc.endsWith(`/${id}.mp3`),
      secondId,
    );
    await first.locator('[data-testid="voice-preview"][data-state="idle"]').waitFor();
    assertEqual(await page.locator('audio[data-testid="preview-audio"]').count(), 1, 'one preview element');
    await second.getByTestId('voice-preview').click();
    await second.locator('[data-testid="voice-preview"][data-state="idle"]').waitFor();

    await second.getByTestId('voice-use').click();
    await env.ui.waitForHash(`/app/playground?${new URLSearchParams({ voice: secondId! }).toString()}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${secondId}"]`).waitFor();
  });

  test('in Chinese, the voice library names rare languages and shows no raw locale code', async () => {
    const page = env.page;
    for (const lang of ['zh-CN', 'zh-TW'] as const) {
      await env.ui.chooseLanguage(lang);
      for (const code of ['en-029', 'smj', 'tlh', 'xex']) {
        await env.ui.goto(`/app/voices?language=${code}`);
        const first = (await (await fetch(`${env.server.baseUrl}/voice?languages=${code}&page_size=1`)).json()) as {
          items: { id: string }[];
        };
        const row = page.locator(`[data-testid="voice-row"][data-voice-id="${first.items[0]!.id}"]`).first();
        await row.waitFor();
        const text = await row.innerText();
        assert(/[\u4e00-\u9fff]/.test(text), `a ${code} voice is named in ${lang}: ${text}`);
        assert(!new RegExp(`(^|[\\s,(])${code}($|[\\s,)])`, 'i').test(text), `no raw ${code} in ${lang}: ${text}`);
      }
      await shot(`voices-rare-${lang}`);
    }
    // A phone (390 px) view of the voices and the playground, in Chinese.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await env.ui.goto('/app/voices?language=en-029');
      await page.locator('[data-testid="voice-row"]').first().waitFor();
      await shot('voices-phone-zh-TW');
      await env.ui.goto('/app/playground');
      await page.getByTestId('playground-generate').waitFor();
      await shot('playground-phone-zh-TW');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await env.ui.chooseLanguage('en');
    }
  });

  test('the models page shows each model, and links to its voices', async () => {
    const page = env.page;
    await env.ui.goto('/app/models');
    const cards = page.getByTestId('model-card');
    await cards.first().waitFor();
    const models = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-model')));
    for (const m of ['espeak-ng', 'flite', 'gnuspeech']) assert(models.includes(m), `a card for ${m} (${models.join(', ')})`);
    const espeak = page.locator('[data-testid="model-card"][data-model="espeak-ng"]');
    assert(Number(await espeak.getByTestId('model-languages').innerText()) >= 100, 'eSpeak NG speaks 100+ languages');
    assert(Number((await espeak.getByTestId('model-voices').innerText()).replace(/\D/g, '')) >= 500, 'eSpeak NG has 500+ voices');
    assert(Number(await espeak.getByTestId('model-price').innerText()) > 0, 'the price per character');
    assert((await espeak.locator('[data-testid="model-genders"] [data-sex]').count()) >= 2, 'genders with icons');
    await shot('models-en');
    await page.locator('[data-testid="model-card"][data-model="flite"]').getByTestId('model-browse').click();
    await env.ui.waitForHash('/app/voices?model=flite');
    await waitForRowsOfModel(page, '[data-testid="voices-page"]', 'flite');
  });

  test('the model config is retried after 3, 8 and 15 s, then a dialog offers a retry', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await context.newPage();
      await p.addInitScript({ content: "localStorage.setItem('polyvox.lang', 'en');" });
      await p.clock.install();
      const calls: { at: number; lang: string | null }[] = [];
      let failing = true;
      await p.route('**/tts/config?*', async (route) => {
        calls.push({ at: await p.evaluate(() => Date.now()), lang: new URL(route.request().url()).searchParams.get('lang') });
        if (failing) await route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"INTERNAL"}}' });
        else await route.continue();
      });
      const ui = new Console(p, env.server.baseUrl);
      await ui.goto('/');
      const waitCalls = async (n: number) => {
        const deadline = Date.now() + 10_000;
        while (calls.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assertEqual(calls.length, n, 'config requests so far');
      };
      await waitCalls(1);
      // On a loaded machine the page's clock may already be past the first failure + 100 ms by the time it is paused:
      // then it pauses a little ahead of where it is, with a wider margin each time that still lands in the past.
      for (let margin = 100; ; margin *= 2) {
        try {
          await p.clock.pauseAt(Math.max(calls[0]!.at + 100, (await p.evaluate(() => Date.now())) + margin));
          break;
        } catch (err) {
          if (margin >= 1600) throw err;
        }
      }
      for (const [delay, n] of [
        [3000, 2],
        [8000, 3],
        [15000, 4],
      ] as const) {
        const start = calls[calls.length - 1]!.at;
        await p.clock.runFor(start + delay - 200 - (await p.evaluate(() => Date.now())));
        await new Promise((r) => setTimeout(r, 200));
        assertEqual(calls.length, n - 1, `no retry before ${delay / 1000} s`);
        // The retry's timer starts when the page has handled the failure, a little after `start` on a busy page: the
        // clock moves on in small steps until the retry is asked for (bounded), never far past it.
        for (let step = 0; step < 20 && calls.length < n; step++) {
          await p.clock.runFor(100);
          await new Promise((r) => setTimeout(r, 100));
        }
        await waitCalls(n);
        const gap = calls[n - 1]!.at - start;
        assert(gap >= delay - 200 && gap <= delay + 1000, `retry ${n - 1} after ${delay} ms (took ${gap} ms)`);
      }
      await p.clock.runFor(1000);
      const dialog = p.getByTestId('config-retry-dialog');
      await dialog.waitFor();
      await p.clock.runFor(30_000);
      assertEqual(calls.length, 4, 'no more automatic retries after the dialog');
      failing = false;
      await p.getByTestId('config-retry').click();
      await waitCalls(5);
      await p.clock.runFor(1000);
      await dialog.waitFor({ state: 'detached' });

      // Switching language twice within 100 ms (of the page's clock) reloads the config once, in the last language.
      for (const lang of ['zh-CN', 'zh-TW']) {
        await p.getByTestId('language-menu').click();
        await p.clock.runFor(20); // the menu's transition
        await p.getByTestId(`lang-option-${menuCode(lang)}`).click();
        await p.clock.runFor(20);
        await p.locator(`[data-testid="language-menu"][data-locale="${menuCode(lang)}"]`).waitFor();
      }
      assertEqual(calls.length, 5, 'no reload while the language is still changing');
      await p.clock.runFor(200);
      await waitCalls(6);
      assertEqual(calls[5]!.lang, 'zh-TW', 'the config is reloaded in the new language');
      await p.clock.runFor(1000);
      assertEqual(calls.length, 6, 'one reload for two quick changes');
    } finally {
      await context.close();
    }
  });

  test('a neural model dropped into MODELS_DIR is badged Neural and Non-commercial, and the neural filter keeps only its voices', async () => {
    const page = env.page;
    // A tiny Kokoro model with the record `npm run models -- add` leaves (a licence forbidding commercial use),
    // written out of sight and renamed into place as `add` does; the server sees it at its next look (every 3 s).
    const modelsDir = path.join(env.server.dataDir, 'models');
    const staging = path.join(modelsDir, '.staging-kokoro-tiny-en');
    const target = path.join(modelsDir, 'kokoro-tiny-en');
    writeTinyKokoro(staging, [120, 240], ['af_heart', 'bm_george']);
    const licence = { name: 'CC-BY-NC-SA-4.0', commercial: false };
    fs.writeFileSync(path.join(staging, 'polyvox-model.json'), JSON.stringify({ name: 'kokoro-tiny-en', licence }));
    fs.renameSync(staging, target);
    const neuralVoices = async (): Promise<number> =>
      ((await (await fetch(`${env.server.baseUrl}/voice?neural=true&page_size=100`)).json()) as { items: unknown[] }).items
        .length;
    const waitForNeural = async (n: number): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while ((await neuralVoices()) !== n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      assertEqual(await neuralVoices(), n, 'neural voices the server lists');
    };
    try {
      await waitForNeural(2);
      await env.ui.goto('/app/voices');
      await page.locator('[data-testid="voice-total"][data-total]').waitFor();
      // The box follows the route, which React changes in a transition: click, then wait (check() looks at once).
      await page.getByTestId('filter-neural').click();
      await env.ui.waitForHash('/app/voices?neural=1');
      await page.locator('input[data-testid="filter-neural"]:checked').waitFor();
      await page.locator('[data-testid="voice-total"][data-total="2"]').waitFor();
      const rows = page.locator('[data-testid="voice-row"]');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="voice-row"]').length === 2);
      for (const row of await rows.all()) {
        await row.getByTestId('voice-neural').waitFor();
        const nc = row.getByTestId('voice-non-commercial');
        assert(
          (await nc.getAttribute('title'))?.includes(licence.name),
          `the badge names the licence (${await nc.getAttribute('title')})`,
        );
      }
      await shot('voices-neural-en');
      // The filter off: the other voices come back, without either badge.
      await page.getByTestId('filter-neural').click();
      await env.ui.waitForHash('/app/voices');
      await page.locator('[data-testid="voice-row"]:not(:has([data-testid="voice-neural"]))').first().waitFor();
      await chooseOption(page, page.getByTestId('filter-model'), 'Flite');
      await waitForRowsOfModel(page, '[data-testid="voices-page"]', 'flite');
      assertEqual(
        await page.locator('[data-testid="voices-page"] [data-testid="voice-neural"]').count(),
        0,
        'no Flite voice is badged Neural',
      );
      assertEqual(
        await page.locator('[data-testid="voices-page"] [data-testid="voice-non-commercial"]').count(),
        0,
        'nor Non-commercial',
      );
    } finally {
      // Taken out again, so the flows after this one see the built-in engines only.
      fs.rmSync(target, { recursive: true, force: true });
      fs.rmSync(staging, { recursive: true, force: true });
      await waitForNeural(0);
    }
  });
}
