import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorMessage } from '@polyvox/contracts';
import { readAigcValues, wavWithInfo } from '@polyvox/speech/formats';
import type { Page, Request } from '@playwright/test';
import { Console, SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { env, LANGS, SHOTS, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits, waitForSettledPage } from '../lib/layout-checks';
import { ROOT } from '../lib/server';
import { waitForWaveform } from '../lib/speech';

const FIXTURES = process.env.SPEECH_FIXTURES ?? path.resolve(ROOT, 'fixtures/speech');
/** A person speaking, recorded long before this platform: it must never read as made here. */
const JFK = path.join(FIXTURES, 'jfk.wav');

const TITLE: Record<(typeof LANGS)[number], string> = { en: 'Check audio', 'zh-CN': '音频检测', 'zh-TW': '音訊檢測' };
const VERDICT = {
  ours: { en: "Made by this platform's AI", 'zh-CN': '由本平台的 AI 生成', 'zh-TW': '由本平台的 AI 產生' },
  none: { en: 'No mark of this platform found', 'zh-CN': '未发现本平台的标记', 'zh-TW': '未發現本平台的標記' },
  copied: {
    en: 'AI label copied from other audio, or altered',
    'zh-CN': 'AI 标识复制自其他音频，或被改动过',
    'zh-TW': 'AI 標示複製自其他音訊，或被竄改過',
  },
} as const;
/** Long enough (several seconds) for the watermark's short-clip detector; Flite is the quickest engine. */
const SPEECH = {
  text: 'This sentence was spoken by Polyvox. The check page should recognise it as made here, from the watermark in its sound and from the labels in its file.',
  voice_id: 'voice_flite.slt',
  format: 'wav',
};

/** A screenshot of this page (the shared `shot` takes the signed-in page's). */
function shot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

const isVerify = (r: Request) => new URL(r.url()).pathname === '/provenance/verify' && r.method() === 'POST';

/** Picks the file in the page and waits for the server's answer and the verdict it shows. */
async function checkFile(page: Page, file: string): Promise<{ status: number; verdict: string | null }> {
  const answered = page.waitForResponse((r) => isVerify(r.request()), { timeout: 60_000 });
  await page.getByTestId('check-file').setInputFiles(file);
  const res = await answered;
  if (res.status() !== 200) return { status: res.status(), verdict: null };
  const verdict = page.getByTestId('check-verdict');
  await verdict.waitFor();
  return { status: 200, verdict: await verdict.getAttribute('data-verdict') };
}

/** Audio this platform made for the signed-in account: POST /tts with the browser's session, kept in a file. */
async function madeHere(page: Page): Promise<string> {
  const sid = await page.evaluate((k) => localStorage.getItem(k), SID_KEY);
  const res = await fetch(`${env.server.baseUrl}/tts`, {
    method: 'POST',
    headers: { 'x-sid': sid ?? '', 'content-type': 'application/json' },
    body: JSON.stringify(SPEECH),
  });
  assertEqual(res.status, 200, 'POST /tts');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-check-')), 'made-here.wav');
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

/**
 * The "Check audio" page: open to visitors in the three languages and in the menu, fitting a phone and a desktop,
 * refusing a file it must not send, then the server's answer for a person's recording and for audio made here
 * (with the maker's record only for the maker); the playground says what its downloads carry and links here.
 */
export function provenanceTests(): void {
  test('a visitor opens Check audio in three languages from the menu; it fits 390 px and 1440 px and refuses what it must not send', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      const ui = new Console(page, env.server.baseUrl);
      await ui.goto('/');
      await ui.waitForSid();
      let sent = 0;
      page.on('request', (r) => {
        if (isVerify(r)) sent++;
      });
      for (const lang of LANGS) {
        await ui.chooseLanguage(lang);
        await page.setViewportSize({ width: 1440, height: 900 });
        // Reached from the header menu, without signing in.
        await ui.goto('/');
        await page.getByTestId('header-nav-check').click();
        await ui.waitForHash('/check');
        await waitForSettledPage(page);
        assertEqual(await ui.text('page-title'), TITLE[lang], `the title in ${lang}`);
        assertEqual(await page.title(), `${TITLE[lang]} · Polyvox`, `the tab title in ${lang}`);
        await page.getByTestId('empty-state').waitFor();
        await assertFits(page, `/check ${lang} 1440px`);
        await page.setViewportSize({ width: 390, height: 844 });
        await assertFits(page, `/check ${lang} 390px`);
        if (lang === 'en') await shot(page, 'check-phone-empty');

        // Refused in the page, in the page's language, before anything is sent.
        await page
          .getByTestId('check-file')
          .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not audio') });
        await page
          .getByTestId('check-file-error')
          .getByText(errorMessage('UNSUPPORTED_FILE_TYPE', lang), { exact: true })
          .waitFor();
        await page
          .getByTestId('check-file')
          .setInputFiles({ name: 'long.wav', mimeType: 'audio/wav', buffer: Buffer.alloc(20_000_001) });
        await page
          .getByTestId('check-file-error')
          .getByText(errorMessage('FILE_TOO_LARGE', lang, { limit: '20 MB' }), { exact: true })
          .waitFor();
        await assertFits(page, `/check ${lang} 390px with an error`);
      }
      assertEqual(sent, 0, 'nothing was sent to /provenance/verify');
    } finally {
      await context.close();
    }
  });

  test('the playground says what downloads carry, by format, and links to Check audio', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await env.ui.goto('/app/playground');
    const note = page.getByTestId('download-label-note');
    await note.waitFor();
    // A short text streams: its download is labelled (metadata, watermark) and the note says it is not signed.
    const said = await note.innerText();
    assert(said.includes('a metadata field and an inaudible watermark.'), `mp3 streamed: what it carries (${said})`);
    assert(said.includes('not signed'), 'the note does not promise C2PA on a streamed download');
    await page.getByTestId('playground-format').getByText('PCM', { exact: true }).click();
    await page.waitForFunction(
      () => !document.querySelector('[data-testid="download-label-note"]')?.textContent?.includes('C2PA'),
    );
    assert((await note.innerText()).includes('watermark'), 'pcm keeps the watermark');
    await page.getByTestId('playground-format').getByText('MP3', { exact: true }).click();
    await page.getByTestId('download-label-check').click();
    await env.ui.waitForHash('/app/check');
    await page.getByTestId('check-page').waitFor();
    assertEqual(await env.ui.text('page-title'), TITLE.en, 'the console’s Check audio');
    await page.getByTestId('nav-check').waitFor();
  });

  // Needs POST /provenance/verify on the server.
  test('a person’s recording: no mark of this platform found (and no claim that a person made it); its waveform is drawn', async () => {
    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      const ui = new Console(page, env.server.baseUrl);
      await ui.goto('/check');
      await ui.waitForSid();
      await ui.chooseLanguage('en');
      const { status, verdict } = await checkFile(page, JFK);
      assertEqual(status, 200, 'POST /provenance/verify of jfk.wav');
      assertEqual(verdict, 'none', 'the verdict');
      assertEqual(await ui.text('check-verdict-title'), VERDICT.none.en, 'the verdict in words');
      assertEqual(await page.getByTestId('check-watermark').getAttribute('data-ok'), 'false', 'no watermark');
      assertEqual(await page.getByTestId('check-record').count(), 0, 'no record for a file not made here');
      await page.getByTestId('check-watermark-chance').waitFor();
      await waitForWaveform(page);
      await assertFits(page, 'the answer at 390px');
      await shot(page, 'check-phone-human');
    } finally {
      await context.close();
    }
  });

  test('a streamed mp3 downloaded from the playground carries what the note says: Check audio finds its label and mark', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await env.ui.goto(`/app/playground?voice=${SPEECH.voice_id}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${SPEECH.voice_id}"]`).waitFor();
    await page.getByTestId('playground-format').getByText('MP3', { exact: true }).click();
    await page.getByTestId('playground-text').fill(SPEECH.text);
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    const note = await page.getByTestId('download-label-note').innerText();
    await page.locator('[data-testid="playground-generate"]:not([disabled])').click();
    await page.locator('[data-testid="playground-result"][data-phase="done"]').waitFor({ timeout: 90_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('result-download').click()]);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-check-')), 'streamed.mp3');
    await download.saveAs(file);
    await env.ui.goto('/app/check');
    const { status, verdict } = await checkFile(page, file);
    assertEqual(status, 200, 'POST /provenance/verify');
    assertEqual(verdict, 'ours', 'the download is recognised as made here');
    assertEqual(await page.getByTestId('check-watermark').getAttribute('data-ok'), 'true', 'the watermark the note names');
    assertEqual(
      await page.getByTestId('check-aigc-integrity').getAttribute('data-valid'),
      'true',
      'the metadata label the note names',
    );
    // The note promised no C2PA credential for it, and the page does not say the file was converted.
    const c2pa = page.getByTestId('check-c2pa');
    if ((await c2pa.getAttribute('data-ok')) !== 'true') {
      assert(note.includes('not signed'), `the note said the streamed file is not signed (${note})`);
      assert((await c2pa.innerText()).includes('streamed audio carries none'), 'Check audio explains a streamed file');
    }
  });

  // Needs POST /provenance/verify on the server.
  test('audio made here: the maker reads "made here" with the record in three languages; a visitor sees no record', async () => {
    const page = env.page;
    await ensureSignedIn();
    const file = await madeHere(page);
    const voice = (await (await fetch(`${env.server.baseUrl}/voice?id=${SPEECH.voice_id}`)).json()) as { name: string };
    await env.ui.goto('/app/check');
    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      const { status, verdict } = await checkFile(page, file);
      assertEqual(status, 200, `POST /provenance/verify (${lang})`);
      assertEqual(verdict, 'ours', `the verdict (${lang})`);
      assertEqual(await env.ui.text('check-verdict-title'), VERDICT.ours[lang], `the verdict in ${lang}`);
      assertEqual(await page.getByTestId('check-watermark').getAttribute('data-ok'), 'true', 'the watermark is found');
      assertEqual(await page.getByTestId('check-aigc-integrity').getAttribute('data-valid'), 'true', 'the AIGC label checks out');
      assertEqual(await page.getByTestId('check-c2pa').getAttribute('data-ok'), 'true', 'a valid C2PA manifest (wav)');
      await page.getByTestId('check-record').waitFor();
      // The voice by the name the library gives it, not its id.
      await page.waitForFunction(
        (name) => document.querySelector('[data-testid="check-record-voice"]')?.textContent?.trim() === name,
        voice.name,
      );
    }
    await env.ui.chooseLanguage('en');
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await assertFits(page, 'the maker’s answer at 390px');
      await shot(page, 'check-phone-made-here');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    // Another browser, not signed in: the same verdict, without the record.
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const visitor = await context.newPage();
      const ui = new Console(visitor, env.server.baseUrl);
      await ui.goto('/check');
      await ui.waitForSid();
      const { status, verdict } = await checkFile(visitor, file);
      assertEqual(status, 200, 'POST /provenance/verify as a visitor');
      assertEqual(verdict, 'ours', 'the visitor’s verdict');
      assertEqual(await visitor.getByTestId('check-record').count(), 0, 'no record for a visitor');
    } finally {
      await context.close();
    }
  });

  // Needs POST /provenance/verify on the server.
  test('a label copied from audio made here onto a person’s recording: "copied" in three languages, and no record even for its maker', async () => {
    const page = env.page;
    await ensureSignedIn();
    const made = await madeHere(page);
    const [label] = readAigcValues(fs.readFileSync(made));
    assert(label !== undefined, 'the file made here carries its label');
    const copied = path.join(path.dirname(made), 'copied-label.wav');
    fs.writeFileSync(copied, wavWithInfo(fs.readFileSync(JFK), [['AIGC', label]]));
    await env.ui.goto('/app/check');
    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      const { status, verdict } = await checkFile(page, copied);
      assertEqual(status, 200, `POST /provenance/verify (${lang})`);
      assertEqual(verdict, 'copied', `the verdict (${lang})`);
      assertEqual(await env.ui.text('check-verdict-title'), VERDICT.copied[lang], `the verdict in ${lang}`);
      assertEqual(await page.getByTestId('check-aigc-integrity').getAttribute('data-valid'), 'false', 'the label does not bind');
      assertEqual(await page.getByTestId('check-watermark').getAttribute('data-ok'), 'false', 'no watermark');
      assertEqual(await page.getByTestId('check-record').count(), 0, 'no record, even for the account that made the label');
    }
    await env.ui.chooseLanguage('en');
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await assertFits(page, 'the copied label’s answer at 390px');
      await shot(page, 'check-phone-copied-label');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
}
