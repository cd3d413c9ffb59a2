import fs from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { env, shot } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits, waitForSettledPage } from '../lib/layout-checks';
import { dismissToasts, waitForPlayback } from '../lib/speech';

const TITLE = { en: 'Pronunciation', 'zh-CN': '发音' } as const;
type Lang = keyof typeof TITLE;

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>UN</grapheme><alias>United Nations</alias></lexeme>
  <lexeme><grapheme>tomato</grapheme><phoneme>təˈmɑːtoʊ</phoneme></lexeme>
</lexicon>`;
/** A billion-laughs file: refused by the server, whose message the page shows in its language. */
const HOSTILE = `<?xml version="1.0"?>
<!DOCTYPE lexicon [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa"><lexeme><grapheme>&lol2;</grapheme><alias>x</alias></lexeme></lexicon>`;

/** What the server says, in `lang`, to the same upload the page makes (the page must show exactly this). */
async function serverRefusal(page: Page, lang: Lang, file: string): Promise<string> {
  const sid = await page.evaluate((k) => localStorage.getItem(k), SID_KEY);
  const form = new FormData();
  form.append('name', 'probe');
  form.append('file', new Blob([file], { type: 'application/pls+xml' }), 'bad.pls');
  const res = await fetch(`${env.server.baseUrl}/v1/pronunciation-dictionaries/add-from-file?lang=${lang}`, {
    method: 'POST',
    headers: { 'x-sid': sid ?? '' },
    body: form,
  });
  assertEqual(res.status, 400, 'a PLS file with a DOCTYPE is refused');
  return ((await res.json()) as { error: { message: string } }).error.message;
}

async function openCreate(page: Page, name: string): Promise<void> {
  await page.getByTestId('dictionary-create').click();
  await page.getByTestId('dictionary-name').fill(name);
}

/** Waits for the dictionary panel to show this dictionary with these words, in order. */
async function waitForRules(page: Page, words: string[]): Promise<void> {
  await page.waitForFunction(
    (w) =>
      JSON.stringify(
        Array.from(document.querySelectorAll('[data-testid="rule-row"]')).map((r) => r.getAttribute('data-word')),
      ) === JSON.stringify(w),
    words,
  );
}

async function createFromRules(page: Page, name: string): Promise<string> {
  await openCreate(page, name);
  await page.getByTestId('create-rule-0-word').fill('Nguyen');
  await page
    .getByTestId('create-rule-0-type')
    .getByText(/Phonemes|音标/)
    .click();
  await page.getByTestId('create-rule-0-value').fill('wɪn');
  await page.getByTestId('dictionary-create-submit').click();
  await page.locator(`[data-testid="dictionary-row"][data-name="${name}"]`).waitFor();
  await waitForRules(page, ['Nguyen']);
  const row = page.locator('[data-testid="rule-row"][data-word="Nguyen"]');
  assertEqual(await row.getAttribute('data-type'), 'phoneme', 'a phoneme rule');
  assert((await row.getByTestId('rule-said-as').innerText()).includes('wɪn'), 'the phonemes shown');
  return (await page.getByTestId('dictionary-panel').getAttribute('data-id'))!;
}

async function pickDictionary(page: Page, testId: string, name: string): Promise<void> {
  await dismissToasts(page);
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name }).first().click();
  await page.keyboard.press('Escape');
}

async function flow(page: Page, lang: Lang): Promise<void> {
  await env.ui.goto('/app/dashboard');
  await env.ui.chooseLanguage(lang);
  await page.getByTestId('nav-pronunciation').first().click();
  await env.ui.waitForHash('/app/pronunciation');
  // The route changes before React shows it (navigations are transitions): wait for the page itself.
  await page.getByTestId('pronunciation-page').waitFor();
  await waitForSettledPage(page);
  assertEqual(await env.ui.text('page-title'), TITLE[lang], `the title in ${lang}`);

  // From rules: a phoneme rule in IPA.
  const rulesName = `Names ${lang} ${Date.now()}`;
  const rulesId = await createFromRules(page, rulesName);

  // A hostile PLS file: the server's refusal, in the page's language, in the form.
  await openCreate(page, `Hostile ${lang}`);
  await page.getByTestId('dictionary-mode-file').click();
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: 'bad.pls', mimeType: 'application/pls+xml', buffer: Buffer.from(HOSTILE) });
  await page.getByTestId('dictionary-create-submit').click();
  const refusal = await serverRefusal(page, lang, HOSTILE);
  await page.getByTestId('dictionary-create-error').getByText(refusal, { exact: true }).waitFor();
  if (lang !== 'en') assert(/\p{Script=Han}/u.test(refusal), `the refusal is in ${lang}: ${refusal}`);
  // The good file, in the same dialog.
  await page.getByTestId('dictionary-name').fill(`Lexicon ${lang}`);
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: 'lexicon.pls', mimeType: 'application/pls+xml', buffer: Buffer.from(PLS) });
  await page.getByTestId('dictionary-create-submit').click();
  await page.locator(`[data-testid="dictionary-row"][data-name="Lexicon ${lang}"]`).waitFor();
  await waitForRules(page, ['UN', 'tomato']);
  await page.locator('[data-testid="dictionary-versions"][data-count="1"]').waitFor();
  const fileId = (await page.getByTestId('dictionary-panel').getAttribute('data-id'))!;
  const firstVersion = (await page.getByTestId('version-row').first().getAttribute('data-version-id'))!;

  // A rule added: a new version, both listed.
  await page.getByTestId('add-rule-word').fill('SQL');
  await page.getByTestId('add-rule-value').fill('sequel');
  await page.getByTestId('add-rule-case').uncheck();
  await page.getByTestId('add-rule-submit').click();
  await waitForRules(page, ['UN', 'tomato', 'SQL']);
  await page.locator('[data-testid="dictionary-versions"][data-count="2"]').waitFor();
  assertEqual(
    await page.getByTestId('version-row').last().getAttribute('data-version-id'),
    firstVersion,
    'the first version listed last',
  );

  // The first version downloads as it was: without the added rule.
  const downloaded = page.waitForEvent('download');
  await page.getByTestId('version-row').last().getByTestId('version-download').click();
  const file = await fs.readFile((await (await downloaded).path())!, 'utf8');
  assert(
    file.includes('<grapheme>UN</grapheme>') && file.includes('<alias>United Nations</alias>'),
    'the PLS file has the rules',
  );
  assert(!file.includes('SQL'), 'the first version has no rule added later');

  // Default: marked in the panel and the list.
  await page.getByTestId('dictionary-default-toggle').click();
  await page.locator(`[data-testid="dictionary-panel"][data-id="${fileId}"][data-default="true"]`).waitFor();
  await page
    .locator(`[data-testid="dictionary-row"][data-id="${fileId}"][data-default="true"]`)
    .getByTestId('dictionary-default-badge')
    .waitFor();

  // Play a rule's word with the chosen voice and this dictionary, its price shown first.
  const un = page.locator('[data-testid="rule-row"][data-word="UN"]');
  await un.locator('[data-testid="rule-play-estimate"]:not([data-credits=""])').waitFor();
  assert(Number(await un.getByTestId('rule-play-estimate').getAttribute('data-credits')) > 0, 'the estimate is shown');
  const spoken = page.waitForRequest((r) => new URL(r.url()).pathname === '/tts' && r.method() === 'POST');
  await un.getByTestId('rule-play').click();
  const body = (await spoken).postDataJSON() as {
    text: string;
    pronunciation_dictionary_locators: { pronunciation_dictionary_id: string }[];
  };
  assertEqual(body.text, 'UN', 'the rule’s word is spoken');
  assertEqual(body.pronunciation_dictionary_locators[0]?.pronunciation_dictionary_id, fileId, 'with this dictionary');
  await waitForPlayback(page, 'rule-audio', 0.2);

  // The spoken form: with none chosen the default applies; with the rules dictionary alone, its rule and not the default's.
  // A phoneme rule shows as its IPA, never as the engine's own notation ([[w'In]]); the words changed are listed.
  await page.getByTestId('spoken-preview-text').fill('The UN met Nguyen.');
  await page.getByTestId('spoken-preview-run').click();
  await page
    .getByTestId('spoken-form')
    .getByText(/United Nations/)
    .waitFor();
  await page
    .locator('[data-testid="spoken-change"][data-word="UN"][data-type="alias"]')
    .getByText(/United Nations/)
    .waitFor();
  assertEqual(await page.getByTestId('spoken-changes').getAttribute('data-count'), '1', 'the default’s one word changed');
  await pickDictionary(page, 'spoken-preview-dictionaries', rulesName);
  await page.getByTestId('spoken-preview-run').click();
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid="spoken-form"]')?.textContent ?? '';
    return !t.includes('United Nations') && t.includes('UN');
  });
  const withRules = await page.getByTestId('spoken-form').innerText();
  assert(withRules.includes('/wɪn/') && !withRules.includes('[['), `the rule's IPA: ${withRules}`);
  await page.locator('[data-testid="spoken-change"][data-word="Nguyen"][data-type="phoneme"]').getByText(/wɪn/).waitFor();
  assertEqual(await page.getByTestId('spoken-changes').getAttribute('data-count'), '1', 'only this dictionary’s word');
  await page.getByTestId('spoken-changes').scrollIntoViewIfNeeded();
  if (lang === 'en') await shot('pronunciation-en');

  // Fits a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('spoken-form').waitFor();
  await assertFits(page, `/app/pronunciation ${lang} 390px`);
  await page.getByTestId('spoken-changes').scrollIntoViewIfNeeded();
  if (lang === 'en') await shot('pronunciation-phone-en');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Archived: out of the list until asked for.
  await page.locator(`[data-testid="dictionary-row"][data-id="${rulesId}"]`).click();
  await page.locator(`[data-testid="dictionary-panel"][data-id="${rulesId}"]`).waitFor();
  await page.getByTestId('dictionary-archive-toggle').click();
  await page.locator(`[data-testid="dictionary-row"][data-id="${rulesId}"]`).waitFor({ state: 'detached' });
  await page.getByTestId('dictionary-show-archived').click();
  await page.locator(`[data-testid="dictionary-row"][data-id="${rulesId}"]`).getByTestId('dictionary-archived-badge').waitFor();
  await page.getByTestId('dictionary-show-archived').click();
}

/** English labels of the page (apps/web/src/i18n/pronunciation-en.ts): none may show once it speaks zh-TW. */
const ENGLISH = ['New dictionary', 'Dictionaries', 'Make default', 'Archive', 'Versions', 'Download PLS'];

/**
 * Traditional Chinese, cheaply: at 390 px, the page and an open dictionary (made by the flows before) speak zh-TW,
 * with no English label and no raw message key left, and fit the width.
 */
async function zhTwTexts(page: Page): Promise<void> {
  await env.ui.chooseLanguage('zh-TW');
  await page.setViewportSize({ width: 390, height: 844 });
  await env.ui.goto('/app/pronunciation');
  // The page is already shown (the flows before end on it): it changes language in place, no new heading to wait for.
  await page.getByTestId('pronunciation-page').waitFor();
  await page.getByTestId('page-title').filter({ hasText: '發音' }).waitFor();
  assertEqual(await env.ui.text('page-title'), '發音', 'the title in zh-TW');
  await page.locator('[data-testid="dictionary-row"]').first().click();
  await page.getByTestId('dictionary-panel').waitFor();
  await page.locator('[data-testid="dictionary-versions"]:not([data-count=""])').waitFor();
  const text = await page.getByTestId('pronunciation-page').innerText();
  for (const label of ['新建詞典', '詞典', '下載 PLS']) assert(text.includes(label), `zh-TW shows ${label}`);
  for (const label of ENGLISH) assert(!text.includes(label), `no English "${label}" in zh-TW`);
  assert(!/\bpronunciation\.[a-zA-Z]/.test(text), `no raw message key in zh-TW: ${text.match(/pronunciation\.\S+/)?.[0]}`);
  await assertFits(page, '/app/pronunciation zh-TW 390px');
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** The Pronunciation page in English and Simplified Chinese (zh-TW's texts too), and the playground's dictionary picker. */
export function pronunciationTests(): void {
  test('pronunciation dictionaries: create from rules and PLS, add a rule, download, default, play, preview, 390 px, in en and zh-CN, zh-TW’s texts', async () => {
    const page = env.page;
    await ensureSignedIn();
    for (const lang of ['en', 'zh-CN'] as const) await flow(page, lang);
    await zhTwTexts(page);
    await env.ui.chooseLanguage('en');
  });

  test('the playground sends the dictionaries picked (up to 3) with the estimate and the synthesis', async () => {
    const page = env.page;
    await ensureSignedIn();
    // A dictionary of its own, so that this test needs nothing from the one before.
    const sid = await page.evaluate((k) => localStorage.getItem(k), SID_KEY);
    const made = await fetch(`${env.server.baseUrl}/v1/pronunciation-dictionaries/add-from-rules`, {
      method: 'POST',
      headers: { 'x-sid': sid ?? '', 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Playground ${Date.now()}`,
        rules: [{ type: 'alias', string_to_replace: 'UN', alias: 'United Nations' }],
      }),
    });
    assertEqual(made.status, 200, 'a dictionary made through the API');
    await env.ui.goto('/app/playground');
    await page.getByTestId('playground-page').waitFor();
    const name = (await page.getByTestId('dictionary-picker').getAttribute('placeholder')) ?? '';
    assert(name.length > 0, 'with none picked, the picker says the default applies');
    await page.getByTestId('dictionary-picker').click();
    const first = page.getByRole('option').first();
    const label = (await first.innerText()).trim();
    await first.click();
    await page.keyboard.press('Escape');
    const estimated = page.waitForRequest(
      (r) =>
        new URL(r.url()).pathname === '/tts/estimate' &&
        ((r.postDataJSON() as { pronunciation_dictionary_locators?: unknown[] }).pronunciation_dictionary_locators?.length ??
          0) === 1,
    );
    await page.getByTestId('playground-text').fill('The UN met today.');
    await estimated;
    assert(label.length > 0, 'a dictionary was picked');
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    const synthesized = page.waitForRequest(
      (r) => ['/tts', '/tts/jobs'].includes(new URL(r.url()).pathname) && r.method() === 'POST',
    );
    await page.getByTestId('playground-generate').click();
    const body = (await synthesized).postDataJSON() as { pronunciation_dictionary_locators?: unknown[] };
    assertEqual(body.pronunciation_dictionary_locators?.length, 1, 'the synthesis names the dictionary picked');
    await page.locator('[data-testid="playground-generate"][data-state="idle"]').waitFor();
  });
}
