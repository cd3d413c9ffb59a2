import fs from 'node:fs';
import { errorMessage } from '@polyvox/contracts';
import type { Request } from '@playwright/test';
import { env, LANGS, SHOTS, shot } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { assertFits } from '../lib/layout-checks';
import { ensureSignedIn } from '../lib/account';
import { test } from '../lib/fixtures';
import { givePlan, takePlan } from '../lib/plan';
import { billable, chooseOption, waitForPlayback, waitForRowsOfModel, waitForWaveform } from '../lib/speech';

/** The playground: text, voice, estimate, streamed generation with a waveform, download, warnings. */
const SENTENCE = 'Hello from the Polyvox browser test. This sentence is spoken by a real speech engine, streamed as it is made.';
const CHINESE = '你好，欢迎使用语音合成平台。今天的天气非常好，我们一起去公园散步吧。';
const SARAH = 'voice_flite.slt';
const ENGLISH = 'voice_espeak.en-us';
const TITLE = { en: 'Playground', 'zh-CN': '语音合成', 'zh-TW': '語音合成' } as const;

const isPath = (r: Request, path: string, method = 'POST') => new URL(r.url()).pathname === path && r.method() === method;

async function pickSarahFromPicker(): Promise<void> {
  const page = env.page;
  await page.getByTestId('playground-change-voice').click();
  const picker = page.getByTestId('voice-picker');
  await picker.waitFor();
  await chooseOption(page, picker.getByTestId('filter-model'), 'Flite');
  await waitForRowsOfModel(page, '[data-testid="voice-picker"]', 'flite');
  await picker.getByTestId('filter-name').fill('Sarah');
  const row = picker.locator(`[data-testid="voice-row"][data-voice-id="${SARAH}"]`);
  await row.waitFor();
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="voice-picker"] [data-testid="voice-row"]').length === 1,
  );
  // Sarah is the default English voice, so she may already be the selected one.
  await row.locator('[data-testid="voice-select"], [data-testid="voice-selected"]').click();
  await picker.waitFor({ state: 'detached' });
}

export function playgroundTests(): void {
  test('the playground prices a typed sentence for the picked voice (debounced estimate)', async () => {
    const page = env.page;
    await env.ui.goto('/app/playground');
    await page.getByTestId('playground-page').waitFor();
    // With no voice chosen yet, English opens on its most intelligible voice (Flite slt), not eSpeak's Caribbean.
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${SARAH}"]`).waitFor();
    await pickSarahFromPicker();
    await env.ui.waitForHash(`/app/playground?voice=${SARAH}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${SARAH}"]`).waitFor();

    const estimates: Request[] = [];
    const count = (r: Request) => {
      if (isPath(r, '/tts/estimate')) estimates.push(r);
    };
    page.on('request', count);
    await page.getByTestId('playground-text').pressSequentially(SENTENCE.slice(0, 40), { delay: 15 });
    await page.getByTestId('playground-text').fill(SENTENCE);
    const want = billable(SENTENCE);
    assertEqual(Number(await page.getByTestId('playground-count').getAttribute('data-characters')), want, 'live character count');
    await page.locator(`[data-testid="playground-estimate"][data-state="ready"][data-credits="${want}"]`).waitFor();
    page.off('request', count);
    assert(
      estimates.length >= 1 && estimates.length <= 4,
      `typing 40 keys sends a few estimates, not one per key (${estimates.length})`,
    );
    const last = estimates[estimates.length - 1]!.postDataJSON() as { text: string; voice_id: string };
    assertEqual(last.voice_id, SARAH, 'the estimate is for the picked voice');
    assertEqual(last.text, SENTENCE, 'the estimate is for the whole text');
    assert(Number(await page.getByTestId('playground-balance').getAttribute('data-credits')) > 0, 'the balance is shown');
  });

  test('generating streams the audio, plays it with a waveform, refreshes the balance, and downloads', async () => {
    const page = env.page;
    const before = Number(await page.getByTestId('playground-balance').getAttribute('data-credits'));
    const estimated = Number(await page.getByTestId('playground-estimate').getAttribute('data-credits'));
    const phases: string[] = [];
    await page.exposeFunction('__phase', (p: string) => phases.push(p)).catch(() => undefined);
    // Records each phase/mode the result goes through (a string: helpers a TypeScript transform adds do not exist in the page).
    await page.evaluate(`(() => {
      const seen = new Set();
      const tick = () => {
        const el = document.querySelector('[data-testid="playground-result"]');
        const p = el ? el.getAttribute('data-phase') + '/' + el.getAttribute('data-mode') : '';
        if (el && !seen.has(p)) { seen.add(p); window.__phase(p); }
        if (!seen.has('done/stream') && !seen.has('done/collect')) requestAnimationFrame(tick);
      };
      tick();
    })()`);
    const sent = page.waitForRequest((r) => isPath(r, '/tts'));
    const answered = page.waitForResponse((r) => isPath(r.request(), '/tts'));
    await page.getByTestId('playground-generate').click();
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    assertEqual(body.stream, true, 'POST /tts asks for a stream');
    assertEqual(body.voice_id, SARAH, 'voice_id');
    assertEqual(body.format, 'mp3', 'format');
    assertEqual(body.speed, 1, 'speed');
    assertEqual(body.pitch, 0, 'pitch');
    const res = await answered;
    assertEqual(res.status(), 200, 'POST /tts');
    const charged = Number(res.headers()['x-credits-charged']);
    assertEqual(charged, estimated, 'x-credits-charged is the estimate shown');

    assertEqual(body.timestamps, true, 'the stream asks for its timings');
    await waitForPlayback(page, 'result-audio', 0.3);
    // The transcript follows the stream as it plays: a word is lit while the audio plays.
    await page.getByTestId('result-transcript').locator('span[data-lit]').waitFor();
    // On a phone the result with its transcript stays inside the screen.
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFits(page, 'the result at 390 px');
    await page.getByTestId('result-transcript').screenshot({ path: `${SHOTS}/transcript-390.png` });
    await page.setViewportSize(viewport);
    // Streamed: the waveform is drawn from the first piece and grows; it comes to cover the sentence.
    const wave = await waitForWaveform(page, 2);
    assert(wave.duration > 2, `the waveform covers the sentence (${wave.duration} s)`);
    await page.locator('[data-testid="playground-result"][data-phase="done"]').waitFor({ timeout: 60_000 });
    assert(
      phases.includes('streaming/stream'),
      `the MP3 played through MediaSource while streaming (phases: ${phases.join(', ')})`,
    );
    const status = page.getByTestId('result-status');
    assert(Number(await status.getAttribute('data-bytes')) > 5_000, 'bytes received are shown');
    await page.locator(`[data-testid="playground-balance"][data-credits="${before - charged}"]`).waitFor();
    await page.getByTestId('result-play').click(); // pause
    await page.locator('[data-testid="result-play"][data-playing="false"]').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('result-download').click()]);
    const name = download.suggestedFilename();
    assert(/^polyvox-Sarah-Flite-\d{8}-\d{6}\.mp3$/.test(name), `download file name: ${name}`);
    const file = await download.path();
    const bytes = fs.readFileSync(file);
    assert(bytes.length > 5_000, `the download holds the audio (${bytes.length} bytes)`);
    assert(
      bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0),
      'the download is an MP3',
    );
  });

  test('a double click on Generate starts one generation, plays it and charges once', async () => {
    const page = env.page;
    await page.locator('[data-testid="playground-generate"][data-state="idle"]').waitFor();
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    const before = Number(await page.getByTestId('playground-balance').getAttribute('data-credits'));
    const estimated = Number(await page.getByTestId('playground-estimate').getAttribute('data-credits'));
    const generate = page.getByTestId('playground-generate');
    const box = (await generate.boundingBox())!;
    let sent = 0;
    const count = (r: Request) => {
      if (isPath(r, '/tts')) sent++;
    };
    page.on('request', count);
    const answered = page.waitForResponse((r) => isPath(r.request(), '/tts'));
    await generate.dblclick();
    assertEqual((await answered).status(), 200, 'POST /tts');
    // Stop, once shown, sits elsewhere: the place of Generate never turns into Stop.
    const stop = await page.getByTestId('playground-stop').boundingBox();
    assert(
      !stop || stop.x + stop.width <= box.x || stop.x >= box.x + box.width,
      `Stop (${JSON.stringify(stop)}) does not overlap Generate (${JSON.stringify(box)})`,
    );
    await waitForPlayback(page, 'result-audio', 0.3);
    await page.locator('[data-testid="playground-result"][data-phase="done"]').waitFor({ timeout: 60_000 });
    await page.locator(`[data-testid="playground-balance"][data-credits="${before - estimated}"]`).waitFor();
    page.off('request', count);
    assertEqual(sent, 1, 'one POST /tts for a double click');
    const session = (await env.ui.storage('polyvox.sid'))!;
    const me = (await (await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': session } })).json()) as {
      vip: { credits: number };
    };
    assertEqual(me.vip.credits, before - estimated, 'charged exactly once on the server');
    await page.getByTestId('result-play').click(); // pause
  });

  test('the playground in en, zh-CN and zh-TW (screenshots)', async () => {
    const page = env.page;
    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      assertEqual(await env.ui.text('page-title'), TITLE[lang], `title in ${lang}`);
      await page.waitForTimeout(300);
      await shot(`playground-${lang}`);
      assert(fs.statSync(`${SHOTS}/playground-${lang}.png`).size > 10_000, `playground-${lang}.png was written`);
    }
    await env.ui.chooseLanguage('en');
  });

  test('Chinese text on an English voice warns before sending; a matching voice clears it', async () => {
    const page = env.page;
    let sent = 0;
    const count = (r: Request) => {
      if (isPath(r, '/tts')) sent++;
    };
    page.on('request', count);
    await page.getByTestId('playground-text').fill(CHINESE);
    const warning = page.getByTestId('language-warning');
    await warning.waitFor();
    assert((await warning.getAttribute('data-language'))?.startsWith('zh'), 'the detected language is Chinese');
    assert((await warning.innerText()).includes(errorMessage('LANGUAGE_UNSUPPORTED', 'en')), "the contract's message is shown");
    assert(await page.getByTestId('playground-generate').isDisabled(), 'Generate waits for a matching voice');
    page.off('request', count);
    assertEqual(sent, 0, 'nothing was sent to /tts');

    // The warning's button opens the picker on the text's language.
    await page.getByTestId('language-find-voice').click();
    const picker = page.getByTestId('voice-picker');
    const first = picker.locator('[data-testid="voice-row"]').first();
    await first.waitFor();
    await first.getByTestId('voice-select').click();
    await picker.waitFor({ state: 'detached' });
    await warning.waitFor({ state: 'detached' });
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    // The new voice's estimate may still be on its way (debounced): Generate comes back once it answers.
    await page
      .waitForFunction(
        () => !(document.querySelector('[data-testid="playground-generate"]') as HTMLButtonElement | null)?.disabled,
        null,
        {
          timeout: 60_000,
        },
      )
      .catch(() => undefined);
    assert(await page.getByTestId('playground-generate').isEnabled(), 'Generate is back');
    assert(!(await warning.isVisible()), 'the warning stays away for the matching voice');
  });

  test('a WAV result is collected, then played, drawn and downloaded as .wav', async () => {
    const page = env.page;
    await page.getByTestId('playground-format').getByText('WAV', { exact: true }).click();
    const sent = page.waitForRequest((r) => isPath(r, '/tts'));
    await page.getByTestId('playground-generate').click();
    assertEqual(((await sent).postDataJSON() as { format: string }).format, 'wav', 'format wav');
    await page.locator('[data-testid="playground-result"][data-phase="done"][data-mode="collect"]').waitFor({ timeout: 60_000 });
    await waitForWaveform(page);
    await waitForPlayback(page, 'result-audio', 0.2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('result-download').click()]);
    assert(download.suggestedFilename().endsWith('.wav'), `a .wav file: ${download.suggestedFilename()}`);
    const head = fs.readFileSync(await download.path());
    assertEqual(head.subarray(0, 4).toString('latin1'), 'RIFF', 'a WAV file');
    assertEqual(head.readUInt32LE(4), head.length - 8, 'the RIFF size is the real one');
    await page.getByTestId('result-play').click();
    await page.getByTestId('playground-format').getByText('MP3', { exact: true }).click();
  });

  test('a text above the job threshold runs as a job: polled every second with progress, then played', async () => {
    const page = env.page;
    const limits = ((await (await fetch(`${env.server.baseUrl}/tts/config`)).json()) as { limits: { job_threshold?: number } })
      .limits;
    const threshold = limits.job_threshold;
    assert(typeof threshold === 'number' && threshold > 0, `/tts/config limits carry job_threshold (${JSON.stringify(limits)})`);
    // A visitor's (free plan's) limit is the threshold itself: texts above it are a subscriber's.
    assertEqual((limits as { max_text_length?: number }).max_text_length, threshold, "the free plan's limit");
    await givePlan('monthly');
    await env.ui.goto(`/app/playground?voice=${ENGLISH}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${ENGLISH}"]`).waitFor();
    let text = '';
    while (billable(text) <= threshold) text += 'The quick brown fox jumps over the lazy dog near the river bank. ';
    await page.getByTestId('playground-text').fill(text.trim());
    await page.getByTestId('playground-job-notice').waitFor();
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();

    const polls: number[] = [];
    const onRequest = (r: Request) => {
      if (/^\/tts\/jobs\/[^/]+$/.test(new URL(r.url()).pathname) && r.method() === 'GET') polls.push(Date.now());
    };
    page.on('request', onRequest);
    let streamed = 0;
    const onTts = (r: Request) => {
      if (isPath(r, '/tts')) streamed++;
    };
    page.on('request', onTts);
    const created = page.waitForResponse((r) => isPath(r.request(), '/tts/jobs'));
    await page.getByTestId('playground-generate').click();
    const res = await created;
    assertEqual(res.status(), 202, 'POST /tts/jobs');
    const job = (await res.json()) as { id: string; credits: number };
    await page.getByTestId('result-job-progress').waitFor();
    await page.locator('[data-testid="playground-result"][data-phase="done"]').waitFor({ timeout: 60_000 });
    page.off('request', onRequest);
    page.off('request', onTts);
    assertEqual(streamed, 0, 'no streamed POST /tts for a job');
    assert(polls.length >= 1, 'the job was polled');
    const gaps = polls.slice(1).map((t, i) => t - polls[i]!);
    assert(
      gaps.every((g) => g >= 800 && g <= 2500),
      `polled about every second (${gaps.join(', ')} ms)`,
    );
    await waitForWaveform(page);
    await waitForPlayback(page, 'result-audio', 0.3);
    // The transcript follows the playback: the lit word is the one whose start the audio has passed last.
    const transcript = page.getByTestId('result-transcript');
    await transcript.waitFor();
    const lit = transcript.locator('span[data-lit]');
    await lit.waitFor();
    const [litStart, now] = await Promise.all([
      lit.getAttribute('data-start').then(Number),
      page.getByTestId('result-audio').evaluate((a: HTMLAudioElement) => a.currentTime),
    ]);
    assert(litStart <= now + 0.25, `the lit word starts at ${litStart} s, the audio is at ${now} s`);
    assert((await transcript.innerText()).includes('The quick brown fox jumps over the lazy dog'), 'the transcript is the text');
    // The subtitles download as files named by the job.
    for (const format of ['srt', 'vtt'] as const) {
      const download = page.waitForEvent('download');
      await page.getByTestId(`result-subtitles-${format}`).click();
      const file = await download;
      assertEqual(file.suggestedFilename(), `${job.id}.${format}`, 'the subtitles file name');
      const body = fs.readFileSync((await file.path())!, 'utf8');
      assert(format === 'vtt' ? body.startsWith('WEBVTT') : /^1\n00:00:\d\d,\d{3} --> /.test(body), `a ${format} file`);
    }
    const audio = await fetch(`${env.server.baseUrl}/tts/jobs/${job.id}`, {
      headers: { 'x-sid': (await env.ui.storage('polyvox.sid'))! },
    });
    assertEqual(((await audio.json()) as { status: string }).status, 'succeeded', 'the job succeeded');
    await page.getByTestId('result-play').click();
  });

  test('the over-limit message and the random text button', async () => {
    const page = env.page;
    const max = Number(await page.getByTestId('playground-count').getAttribute('data-max'));
    assertEqual(max, 5000, "the subscriber's limit from /tts/config");
    await page.getByTestId('playground-text').fill('a'.repeat(max) + ' b');
    await page
      .getByTestId('playground-too-long')
      .getByText(errorMessage('TEXT_TOO_LONG', 'en', { maxLength: max }), { exact: true })
      .waitFor();
    assert(await page.getByTestId('playground-generate').isDisabled(), 'Generate is disabled over the limit');
    const hint = page.locator('[data-testid="playground-estimate"][data-state="over"]');
    await hint.waitFor();
    assert(!(await hint.innerText()).includes('Type some text'), 'over the limit, the cost line does not ask for text');
    // In a Chinese interface, an English voice still gets an English text, with no language warning.
    await env.ui.chooseLanguage('zh-CN');
    const asked = page.waitForRequest((r) => isPath(r, '/api/random/text', 'GET'));
    await page.getByTestId('playground-random').click();
    const lang = new URL((await asked).url()).searchParams.get('lang') ?? '';
    assert(lang.toLowerCase().startsWith('en'), `random text in the voice's language, not the interface's (${lang})`);
    await page.waitForFunction(
      () => ((document.querySelector('[data-testid="playground-text"]') as HTMLTextAreaElement | null)?.value.length ?? 0) > 10,
    );
    const sample = await page.getByTestId('playground-text').inputValue();
    assert(/^[\x20-\x7e’—–…]+$/.test(sample), `an English sample text: ${sample}`);
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    assertEqual(await page.getByTestId('language-warning').count(), 0, 'no language warning for the random text');
    await env.ui.chooseLanguage('en');
    await page.getByTestId('playground-too-long').waitFor({ state: 'hidden' });
  });

  test('SSML: an unknown tag is named at its line and column in the page’s language and blocks Generate; fixed, the spoken form shows', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await env.ui.goto(`/app/playground?voice=${SARAH}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${SARAH}"]`).waitFor();
    await page.getByTestId('playground-text-type').getByText('SSML', { exact: true }).click();
    let sent = 0;
    const count = (r: Request) => {
      if (isPath(r, '/tts') || isPath(r, '/tts/jobs')) sent++;
    };
    page.on('request', count);
    const bad = '<speak>Hello\n <voice name="x">there</voice></speak>';
    await page.getByTestId('playground-text').fill(bad);
    const error = page.getByTestId('playground-ssml-error');
    await error.getByText('Unsupported SSML tag <voice> at line 2, column 2', { exact: true }).waitFor();
    const line = page.getByTestId('playground-ssml-error-line');
    assertEqual(await line.getAttribute('data-line'), '2', 'the line the server names');
    assertEqual(await line.getAttribute('data-column'), '2', 'the column the server names');
    const shown = (await line.innerText()).split('\n');
    assertEqual(shown[0]?.trim(), '<voice name="x">there</voice></speak>', 'the erring line is shown');
    assertEqual(shown[1], ' ^', 'a caret under the column');
    assert(await page.getByTestId('playground-generate').isDisabled(), 'Generate waits for a valid document');
    // The price area says why there is no price: the document, not a missing text or voice.
    const price = page.locator('[data-testid="playground-estimate"][data-state="invalid"]');
    await price.getByText('Fix the SSML above to see the price.', { exact: true }).waitFor();
    await page.getByTestId('playground-ssml-show').click();
    const selected = await page.getByTestId('playground-text').evaluate((el) => (el as HTMLTextAreaElement).selectionStart);
    assertEqual(selected, bad.indexOf('<voice'), 'the link selects the place in the text');
    // The message follows the page's language (asked again, not left in English).
    await env.ui.chooseLanguage('zh-CN');
    await error.getByText('不支持的 SSML 标签 <voice>（第 2 行第 2 列）', { exact: true }).waitFor();
    await price.getByText('请先修正上面的 SSML，再查看价格。', { exact: true }).waitFor();
    await page.getByTestId('playground-ssml-show').getByText('定位到第 2 行第 2 列').waitFor();
    // On a phone the error, its line and caret stay inside the screen (the line scrolls within its own box).
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await assertFits(page, 'the SSML error in zh-CN at 390 px');
    await error.screenshot({ path: `${SHOTS}/playground-ssml-error-zh-CN-390.png` });
    await page.setViewportSize(viewport);
    await env.ui.chooseLanguage('zh-TW');
    await error.getByText('不支援的 SSML 標籤 <voice>（第 2 行第 2 欄）', { exact: false }).waitFor();
    await env.ui.chooseLanguage('en');
    await error.getByText('unsupported SSML tag <voice>', { exact: false }).waitFor();

    // Fixed: the spoken form replaces the error, and the count is the spoken characters the server prices.
    const answered = page.waitForResponse((r) => isPath(r.request(), '/tts/normalize') && r.status() === 200);
    const good = '<speak>Hello <break time="300ms"/> <sub alias="World Wide Web">WWW</sub>.</speak>';
    await page.getByTestId('playground-text').fill(good);
    const spoken = (await (await answered).json()) as { text: string; characters: number };
    await page.getByTestId('playground-spoken').getByText('World Wide Web', { exact: false }).waitFor();
    await error.waitFor({ state: 'detached' });
    assert(!spoken.text.includes('<') && !spoken.text.includes('WWW'), `no tag is spoken: ${spoken.text}`);
    assert(spoken.characters > 0 && spoken.characters < good.length, `the tags are not priced (${spoken.characters})`);
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="playground-count"]')?.getAttribute('data-characters') === String(n),
      spoken.characters,
    );
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    page.off('request', count);
    assertEqual(sent, 0, 'nothing was synthesised while the document was checked');
    await page
      .getByTestId('playground-text-type')
      .getByText(/^(Text|文本|文字)$/)
      .click();
  });

  test('SSML in Chinese: the transcript and its highlight show the spoken words only, with no spaces between characters', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('zh-CN');
    const sid = (await env.ui.storage('polyvox.sid'))!;
    const list = (await (
      await fetch(`${env.server.baseUrl}/voice?source=official&languages=zh-CN&page=1&page_size=1`, { headers: { 'x-sid': sid } })
    ).json()) as { items: { id: string }[] };
    const voice = list.items[0]!.id;
    await env.ui.goto(`/app/playground?voice=${encodeURIComponent(voice)}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${voice}"]`).waitFor();
    await page.getByTestId('playground-text-type').getByText('SSML', { exact: true }).click();
    await page.getByTestId('playground-text').fill('<speak>你好，<break time="300ms"/>今天是2024年5月3日。</speak>');
    await page.getByTestId('playground-spoken').waitFor();
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    await page.locator('[data-testid="playground-generate"]:not([disabled])').click();
    await page.locator('[data-testid="playground-result"][data-phase="done"]').waitFor({ timeout: 60_000 });
    const transcript = page.getByTestId('result-transcript');
    const words = await transcript.locator('span[data-start]').allInnerTexts();
    assertEqual(words.join(''), '你好，今天是2024年5月3日。', 'only the spoken words, and no space between Chinese characters');
    assert(
      !words.some((w) => /\p{Script=Han}/u.test(w) && /\d/.test(w)),
      `no word glues a digit to a character: ${words.join('|')}`,
    );
    // The highlight follows the playback on spoken words only.
    await page.getByTestId('result-audio').evaluate((a: HTMLAudioElement) => {
      a.currentTime = 0;
      void a.play();
    });
    const lit = transcript.locator('span[data-lit]');
    await lit.waitFor();
    assert(words.includes(await lit.innerText()), 'the lit word is one of the spoken words');
    await page.getByTestId('result-audio').evaluate((a: HTMLAudioElement) => a.pause());
    await page
      .getByTestId('playground-text-type')
      .getByText(/^(Text|文本|文字)$/)
      .click();
    await env.ui.chooseLanguage('en');
  });

  test("over the free plan's length: the limit alone (no background-job hint), and a way to upgrade from there", async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await env.ui.goto(`/app/playground?voice=${SARAH}`);
    await page.getByTestId('playground-page').waitFor();
    await takePlan();
    try {
      await page.getByTestId('playground-page').waitFor();
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid="playground-count"]')?.getAttribute('data-max')) > 0,
      );
      const max = Number(await page.getByTestId('playground-count').getAttribute('data-max'));
      assert(max < 5000, `the free plan's limit is below the longest plan's (${max})`);
      await page.getByTestId('playground-text').fill('a'.repeat(max) + ' b');
      const tooLong = page.getByTestId('playground-too-long');
      await tooLong.getByText(errorMessage('TEXT_TOO_LONG', 'en', { maxLength: max }), { exact: false }).waitFor();
      assertEqual(await page.getByTestId('playground-job-notice').count(), 0, 'no background-job hint over the limit');
      const upgrade = page.getByTestId('playground-upgrade');
      await upgrade.waitFor();
      const viewport = page.viewportSize()!;
      await page.setViewportSize({ width: 390, height: 844 });
      await assertFits(page, 'the limit and its upgrade link at 390 px');
      await page.setViewportSize(viewport);
      await upgrade.click();
      await env.ui.waitForHash('/app/pricing');
    } finally {
      await givePlan('monthly');
    }
  });
}
