import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '@polyvox/contracts';
import type { Request } from '@playwright/test';
import { SID_KEY } from '../lib/browser';
import { givePlan, takePlan } from '../lib/plan';
import { env, kept, LANGS, shot, state } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { waitForCode } from '../lib/outbox';
import { ROOT } from '../lib/server';
import { chooseOption, waitForPlayback, waitForWaveform } from '../lib/speech';

/**
 * Voice design in the console: clone jfk.wav (upload with progress, preview, play, activate with
 * its cost, synthesize with it in the playground), design a voice from a prompt on two models
 * side by side, mix two library voices, manage my voices; the pages in three languages.
 */
const FIXTURES = process.env.SPEECH_FIXTURES ?? path.resolve(ROOT, 'fixtures/speech');
const JFK = path.join(FIXTURES, 'jfk.wav');
const TITLES = {
  cloning: { en: 'Voice cloning', 'zh-CN': '声音克隆', 'zh-TW': '聲音複製' },
  textToVoice: { en: 'Text to voice', 'zh-CN': '文字生成声音', 'zh-TW': '文字產生聲音' },
  mix: { en: 'Mix voices', 'zh-CN': '混合声音', 'zh-TW': '混合聲音' },
  myVoices: { en: 'My voices', 'zh-CN': '我的声音', 'zh-TW': '我的聲音' },
} as const;

const RECORD = { en: 'Record with the microphone', 'zh-CN': '用麦克风录制', 'zh-TW': '用麥克風錄製' } as const;
/** What the free plan's warning says, in each language, before previews are paid for. */
const NEEDS_PLAN = {
  en: 'saving another voice needs a plan',
  'zh-CN': '再保存一个需要购买套餐',
  'zh-TW': '再儲存一個需要購買方案',
} as const;
const ESTIMATE_WORD = { en: 'credits', 'zh-CN': '积分', 'zh-TW': '點數' } as const;

const isPath = (r: Request, p: string, method = 'POST') => new URL(r.url()).pathname === p && r.method() === method;

/** A promise awaited later: a test that fails before awaiting it must not leave it rejected unhandled. */
function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

const made = kept<{ cloneId?: string; cloneName: string; mixId?: string; sampleId?: string }>('design', {
  cloneName: `JFK clone ${Date.now() % 100000}`,
});

/** A 16 kHz mono 16-bit WAV of a quiet 200 Hz tone, `seconds` long. */
function toneWav(seconds: number): Buffer {
  const rate = 16000;
  const samples = rate * seconds;
  const out = Buffer.alloc(44 + samples * 2);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write('WAVEfmt ', 8, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 200 * i) / rate)), 44 + i * 2);
  return out;
}

async function sid(): Promise<string> {
  return (await env.ui.storage(SID_KEY))!;
}

async function me(): Promise<{ anonymous: boolean; vip: { credits: number } }> {
  const res = await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': await sid() } });
  return (await res.json()) as { anonymous: boolean; vip: { credits: number } };
}

/**
 * Activation fees and previews need more than an anonymous trial: when this flow runs alone
 * (E2E_FLOWS=design), it registers the console's account through the API, as the sign-in form would.
 */
async function ensureRegistered(): Promise<void> {
  await env.ui.goto('/app/dashboard');
  await env.ui.waitForSid();
  if (!(await me()).anonymous) return givePlan('monthly');
  const email = `design-${Date.now()}@example.com`;
  const headers = { 'x-sid': await sid(), 'content-type': 'application/json' };
  const sent = await fetch(`${env.server.baseUrl}/verification/email`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email }),
  });
  assertEqual(sent.status, 200, 'POST /verification/email');
  const { code } = await waitForCode(env.server.outbox, email, new Set());
  const res = await fetch(`${env.server.baseUrl}/accounts/me/email`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ email, vcode: code }),
  });
  assertEqual(res.status, 200, 'PUT /accounts/me/email');
  const body = (await res.json()) as { sid: string };
  await env.page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [SID_KEY, body.sid]);
  // The cookie the sign-in form's answer would have set (audio elements send it, not the header).
  await env.page.context().addCookies([{ name: 'sid', value: body.sid, url: env.server.baseUrl }]);
  state.registeredSid = body.sid;
  await env.page.reload();
  await env.page.getByTestId('dashboard-page').or(env.page.getByTestId('page-title')).first().waitFor();
  // A cloned voice and a saved mix are two own voices: more than the free plan's one.
  await givePlan('monthly');
  await env.page.getByTestId('dashboard-page').or(env.page.getByTestId('page-title')).first().waitFor();
}

export function designTests(): void {
  test('cloning checks the consent and the file type in the page, then uploads jfk.wav with progress', async () => {
    const page = env.page;
    await ensureRegistered();
    await env.ui.chooseLanguage('en');
    await env.ui.goto('/app/voice-cloning');
    await page.getByTestId('voice-cloning-page').waitFor();
    await page.getByTestId('clone-advice').waitFor();

    let uploads = 0;
    const count = (r: Request) => {
      if (isPath(r, '/files_upload')) uploads++;
    };
    page.on('request', count);
    // No consent yet: the page asks for it and sends nothing.
    await page.getByTestId('clone-file').setInputFiles(JFK);
    await page.getByText('Please confirm that you have the right to clone this voice', { exact: true }).waitFor();
    await page.getByTestId('clone-consent').check();
    // A text file is refused in the page with the contract's message.
    await page
      .getByTestId('clone-file')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    const refused = await page.getByTestId('clone-file-error').innerText();
    assertEqual(refused, errorMessage('UNSUPPORTED_FILE_TYPE', 'en'), 'the type is refused in the page');
    page.off('request', count);
    assertEqual(uploads, 0, 'nothing was uploaded');

    // What passes the page's checks is judged by the server, whose refusals show in the user's language.
    const judged = async (
      name: string,
      buffer: Buffer,
      code: 'UNSUPPORTED_FILE_TYPE' | 'AUDIO_TOO_SHORT',
      lang: 'en' | 'zh-TW',
    ) => {
      const answered = later(page.waitForResponse((r) => isPath(r.request(), '/files_upload')));
      await page.getByTestId('clone-file').setInputFiles({ name, mimeType: 'audio/wav', buffer });
      assertEqual((await answered).status(), code === 'AUDIO_TOO_SHORT' ? 422 : 415, `POST /files_upload of ${name}`);
      await page.getByTestId('clone-file-error').getByText(errorMessage(code, lang), { exact: true }).waitFor();
    };
    await judged('renamed.wav', Buffer.from('this is a text file, not audio\n'.repeat(20)), 'UNSUPPORTED_FILE_TYPE', 'en');
    await env.ui.chooseLanguage('zh-TW');
    await judged('short.wav', toneWav(3), 'AUDIO_TOO_SHORT', 'zh-TW');
    await env.ui.chooseLanguage('en');

    // The progress bar's values as the upload goes (watched in the page, as they may pass quickly).
    await page.evaluate(`(() => {
      window.__percents = [];
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid="clone-progress"]');
        if (el) window.__percents.push(Number(el.getAttribute('data-percent')));
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-percent'] });
    })()`);
    const answered = later(page.waitForResponse((r) => isPath(r.request(), '/files_upload')));
    const size = fs.statSync(JFK).size;
    await page.getByTestId('clone-file').setInputFiles(JFK);
    const res = await answered;
    assertEqual(res.status(), 201, 'POST /files_upload');
    const sample = (await res.json()) as { id: string; index: number; duration: number; noisy: boolean };
    const card = page.getByTestId('clone-sample');
    await card.waitFor();
    const percents = (await page.evaluate('window.__percents')) as number[];
    assert(
      percents.some((p) => p > 0),
      `the upload reported its progress (${percents.join(', ')})`,
    );
    assertEqual(await card.getAttribute('data-sample-id'), sample.id, 'the sample shown is the one uploaded');
    made.sampleId = sample.id;
    assertEqual(await env.ui.text('sample-index'), `#${sample.index}`, "the sample's index");
    assertEqual(await env.ui.text('sample-format'), 'WAV', "the sample's format");
    assertEqual(await env.ui.text('sample-size'), `${(size / 1000).toFixed(1)} kB`, 'the size');
    assert(
      (await env.ui.text('sample-duration')).startsWith('11'),
      `about 11 s of speech (${await env.ui.text('sample-duration')})`,
    );
    assertEqual((await page.getByTestId('clone-noisy').count()) > 0, sample.noisy, 'the noise warning follows the measure');
    await shot('clone-sample-en');
  });

  test('the samples are listed after a reload, play back in the page and can be picked for cloning', async () => {
    const page = env.page;
    const uploaded = await page.getByTestId('clone-sample').getAttribute('data-sample-id');
    await page.reload();
    await page.getByTestId('voice-cloning-page').waitFor();
    const row = page.locator(`[data-testid="sample-row"][data-sample-id="${uploaded}"]`);
    await row.waitFor();
    const listed = (await (
      await fetch(`${env.server.baseUrl}/files?type=clone`, { headers: { 'x-sid': await sid() } })
    ).json()) as { items: { id: string; index: number }[]; total: number };
    assertEqual(await page.getByTestId('sample-row').count(), listed.total, 'every sample of the account is listed');
    assert((await row.innerText()).includes('WAV'), `the row names the format: ${await row.innerText()}`);
    // Playback: the audio is fetched with the session and plays in the page.
    const fetched = later(page.waitForResponse((r) => new URL(r.url()).pathname === `/files/${uploaded}/audio`));
    await row.getByTestId('sample-play').click();
    assertEqual((await fetched).status(), 200, 'GET /files/{id}/audio');
    await row.locator('[data-testid="sample-play"][data-state="playing"]').waitFor();
    await row.getByTestId('sample-play').click();
    await row.locator('[data-testid="sample-play"][data-state="idle"]').waitFor();
    // Picked for cloning without uploading it again.
    let uploads = 0;
    const count = (r: Request) => {
      if (isPath(r, '/files_upload')) uploads++;
    };
    page.on('request', count);
    await row.getByTestId('sample-use').click();
    await page.locator(`[data-testid="clone-sample"][data-sample-id="${uploaded}"]`).waitFor();
    await row.getByTestId('sample-in-use').waitFor();
    page.off('request', count);
    assertEqual(uploads, 0, 'a listed sample is used as it is');
    await shot('clone-samples-en');
  });

  test('a sample is recorded in the page with a level meter and a counter, then uploaded like a file', async () => {
    const page = env.page;
    await page.getByTestId('clone-consent').check();
    const before = Number(await page.getByTestId('sample-list').getAttribute('data-total'));
    await page.getByTestId('record-start').click();
    await page.locator('[data-testid="sample-recorder"][data-state="recording"]').waitFor();
    // The meter moves with the (fake) microphone's speech, and the counter counts.
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="record-level"]')?.getAttribute('data-level')) > 0,
    );
    await shot('clone-recording-en');
    // Too short: stopped at about 2 s, it is refused in the page with the contract's message, nothing sent.
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="record-clock"]')?.getAttribute('data-seconds')) >= 2,
    );
    await page.getByTestId('record-stop').click();
    await page.getByTestId('record-error').getByText(errorMessage('AUDIO_TOO_SHORT', 'en'), { exact: true }).waitFor();
    // Long enough: 11 s, then the upload path takes it as a WAV.
    await page.getByTestId('record-start').click();
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="record-clock"]')?.getAttribute('data-seconds')) >= 11,
      undefined,
      { timeout: 60_000 },
    );
    const answered = later(page.waitForResponse((r) => isPath(r.request(), '/files_upload')));
    await page.getByTestId('record-stop').click();
    const res = await answered;
    assertEqual(res.status(), 201, 'POST /files_upload of the recording');
    const sample = (await res.json()) as { id: string; format: string; duration: number };
    assertEqual(sample.format, 'wav', 'recorded as WAV');
    assert(sample.duration >= 10 && sample.duration < 20, `the recording lasts what was recorded (${sample.duration} s)`);
    await page.locator(`[data-testid="clone-sample"][data-sample-id="${sample.id}"]`).waitFor();
    await page.locator(`[data-testid="sample-list"][data-total="${before + 1}"]`).waitFor();
    await page.locator(`[data-testid="sample-row"][data-sample-id="${sample.id}"]`).waitFor();
    // Back to the uploaded jfk.wav for the clone below.
    await page.locator(`[data-testid="sample-row"][data-sample-id="${made.sampleId}"]`).getByTestId('sample-use').click();
    await page.locator(`[data-testid="clone-sample"][data-sample-id="${made.sampleId}"]`).waitFor();
  });

  test('a clone preview plays with its waveform, and activating it states its cost and lands in my voices', async () => {
    const page = env.page;
    // The form starts on the first model and a language it speaks (once /tts/config has answered).
    await page.waitForFunction(
      () => (document.querySelector('input[data-testid="design-language"]') as HTMLInputElement | null)?.value !== '',
    );
    // The required fields first: the name is empty.
    await page.getByTestId('design-generate').click();
    await page.getByText('Please enter the preview text', { exact: true }).waitFor();
    await page.getByText('Please enter a name for the voice', { exact: true }).waitFor();
    await page.getByTestId('design-name').fill(made.cloneName);
    const asked = later(page.waitForRequest((r) => isPath(r, '/api/random/text', 'GET')));
    await page.getByTestId('design-random').click();
    assert((new URL((await asked).url()).searchParams.get('lang') ?? '').startsWith('en'), 'random text in the chosen language');
    await page.waitForFunction(
      () =>
        ((document.querySelector('[data-testid="design-preview-text"]') as HTMLTextAreaElement | null)?.value.length ?? 0) > 10,
    );
    const before = (await me()).vip.credits;
    // The price is shown before paying: the server's estimate, and the activation fee.
    const estimate = page.locator('[data-testid="design-estimate"][data-state="ready"]');
    await estimate.waitFor();
    const estimated = Number(await estimate.getAttribute('data-credits'));
    assert(estimated > 0, `the previews' price is shown (${estimated})`);
    const activation = Number(await page.getByTestId('design-estimate-activation').getAttribute('data-credits'));
    assert(activation > 0, `the activation fee is shown before paying (${activation})`);
    const sent = later(page.waitForRequest((r) => isPath(r, '/voice/previews')));
    const answered = later(page.waitForResponse((r) => isPath(r.request(), '/voice/previews')));
    await page.getByTestId('design-generate').click();
    const body = (await sent).postDataJSON() as { type: string; file_id: string; language: string };
    assertEqual(body.type, 'clone', 'a clone preview');
    assertEqual(body.file_id, await page.getByTestId('clone-sample').getAttribute('data-sample-id'), 'of the uploaded sample');
    const res = await answered;
    assertEqual(res.status(), 201, 'POST /voice/previews');
    const preview = (await res.json()) as { id: string; credits: number; version: number };
    const card = page.locator(`[data-testid="preview-result"][data-preview-id="${preview.id}"]`);
    await card.waitFor({ timeout: 60_000 });
    const wave = await waitForWaveform(page, 1);
    assert(wave.duration > 1, `the waveform covers the preview (${wave.duration} s)`);
    await waitForPlayback(page, 'result-audio', 0.3);
    await card.getByTestId('result-play').click(); // pause
    const afterPreview = (await me()).vip.credits;
    assertEqual(afterPreview, before - preview.credits, 'the preview is charged what it says');
    assertEqual(preview.credits, estimated, 'the charge is the estimate shown');
    // The version is in the history.
    await page.locator(`[data-testid="history-row"][data-preview-id="${preview.id}"]`).waitFor();

    await card.getByTestId('preview-activate').click();
    const dialog = page.getByTestId('activate-dialog');
    await dialog.waitFor();
    const fee = Number(await dialog.getAttribute('data-fee'));
    const cost = await page.getByTestId('activate-cost').innerText();
    assert(fee > 0, `the dialog knows the activation fee (${await dialog.getAttribute('data-fee')})`);
    assert(cost.includes(new Intl.NumberFormat('en').format(fee)), `the dialog states the cost: ${cost}`);
    assertEqual(await page.getByTestId('activate-name').inputValue(), made.cloneName, 'the name is carried over');
    await page.waitForTimeout(300);
    await shot('clone-activate-en');
    const activated = later(page.waitForResponse((r) => isPath(r.request(), '/voice', 'PUT')));
    await page.getByTestId('activate-confirm').click();
    const put = await activated;
    assertEqual(put.status(), 201, 'PUT /voice');
    const voice = (await put.json()) as { id: string; type: string };
    made.cloneId = voice.id;
    assertEqual(voice.type, 'clone', 'a clone voice');
    await env.ui.waitForHash(`/app/my-voices?voice=${encodeURIComponent(voice.id)}`);
    const row = page.locator(`[data-testid="my-voice-row"][data-voice-id="${voice.id}"]`);
    await row.waitFor();
    assertEqual(await row.getAttribute('data-type'), 'clone', 'listed as a clone');
    // The row says what the voice is: the sample's gender and language (JFK: a man, American English, not the
    // base voice's British), and the menu leads to mixing it.
    assertEqual(await row.getByTestId('my-voice-gender').getAttribute('data-gender'), 'male', 'the clone is listed as male');
    const languages = await row.getByTestId('my-voice-languages').innerText();
    assert(/English/.test(languages) && !/British/.test(languages), `the clone's languages: ${languages}`);
    await page.getByTestId('nav-mix').waitFor();
    assertEqual((await me()).vip.credits, afterPreview - fee, 'the fee was charged once');
  });

  test('the cloned voice synthesizes in the playground', async () => {
    const page = env.page;
    const row = page.locator(`[data-testid="my-voice-row"][data-voice-id="${made.cloneId}"]`);
    await row.getByTestId('my-voice-use').click();
    await env.ui.waitForHash(`/app/playground?voice=${encodeURIComponent(made.cloneId!)}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${made.cloneId}"]`).waitFor();
    assertEqual(await env.ui.text('playground-voice-name'), made.cloneName, 'the clone is the chosen voice');
    await page.getByTestId('playground-text').fill('We choose to go to the moon in this decade and do the other things.');
    await page.locator('[data-testid="playground-estimate"][data-state="ready"]').waitFor();
    const sent = later(page.waitForRequest((r) => isPath(r, '/tts')));
    const answered = later(page.waitForResponse((r) => isPath(r.request(), '/tts')));
    await page.getByTestId('playground-generate').click();
    assertEqual(((await sent).postDataJSON() as { voice_id: string }).voice_id, made.cloneId, 'POST /tts with the clone');
    const res = await answered;
    assertEqual(res.status(), 200, 'POST /tts');
    assert(Number(res.headers()['x-credits-charged']) > 0, 'charged for the synthesis');
    await waitForPlayback(page, 'result-audio', 0.3);
    await page.locator('[data-testid="playground-result"][data-phase="done"]').waitFor({ timeout: 60_000 });
    await waitForWaveform(page);
    await page.getByTestId('result-play').click();
    await shot('clone-playground-en');
  });

  // After the clone's test and before the mix's: the account has exactly one own voice, the free plan's limit.
  test('on the free plan, with its one own voice saved, the price says that saving another needs a plan', async () => {
    const page = env.page;
    await takePlan();
    try {
      for (const lang of LANGS) {
        await env.ui.chooseLanguage(lang);
        await env.ui.goto('/app/text-to-voice');
        await page.getByTestId('ttv-prompt').fill('bright young female voice');
        await page.getByTestId('design-preview-text').fill('The quick brown fox jumps over the lazy dog.');
        await page.getByTestId('design-name').fill('Bright');
        await page.locator('[data-testid="design-estimate"][data-state="ready"]').waitFor();
        const alert = page.getByTestId('design-estimate-plan');
        await alert.waitFor();
        const text = await alert.innerText();
        // The plan's limit and the voices saved, in the page's language, before anything is paid.
        assert(text.includes(NEEDS_PLAN[lang]), `${lang}: the warning says a plan is needed: ${text}`);
        assertEqual(await alert.getByRole('link').getAttribute('href'), '#/app/pricing', `${lang}: it links to the plans`);
        if (lang === 'en') await shot('design-needs-plan-en');
      }
    } finally {
      await env.ui.chooseLanguage('en');
      await givePlan('monthly');
    }
  });

  test('text to voice asks for every field, previews a prompt on two models side by side, and compares versions', async () => {
    const page = env.page;
    await env.ui.goto('/app/text-to-voice');
    await page.getByTestId('text-to-voice-page').waitFor();
    let previews = 0;
    const count = (r: Request) => {
      if (isPath(r, '/voice/previews')) previews++;
    };
    page.on('request', count);
    await page.getByTestId('design-generate').click();
    for (const message of [
      'Please enter a voice description',
      'Please enter the preview text',
      'Please enter a name for the voice',
    ])
      await page.getByText(message, { exact: true }).waitFor();
    page.off('request', count);
    assertEqual(previews, 0, 'nothing is sent while a field is missing');

    await page.getByTestId('ttv-prompt').fill('deep calm male voice');
    await page.getByTestId('design-preview-text').fill('The quick brown fox jumps over the lazy dog.');
    await page.getByTestId('design-name').fill('Deep calm');
    // The form starts on the first model; a second one makes an A/B pair.
    const config = (await (await fetch(`${env.server.baseUrl}/tts/config`)).json()) as { models: { model_name: string }[] };
    const second = config.models.find((m, i) => i > 0 && ['Flite', 'eSpeak NG'].includes(m.model_name)) ?? config.models[1]!;
    await chooseOption(page, page.getByTestId('design-models'), second.model_name);
    await page.keyboard.press('Escape');
    const sent = later(page.waitForRequest((r) => isPath(r, '/voice/previews')));
    // Two models synthesized on a loaded two-core machine: the answer may take longer than the default wait.
    const answered = later(page.waitForResponse((r) => isPath(r.request(), '/voice/previews'), { timeout: 60_000 }));
    await page.getByTestId('design-generate').click();
    const body = (await sent).postDataJSON() as { type: string; prompt: string; models?: string[] };
    assertEqual(body.type, 'prompt', 'a prompt preview');
    assertEqual(body.prompt, 'deep calm male voice', 'the prompt');
    assertEqual(body.models?.length, 2, 'two models in one request');
    assertEqual((await answered).status(), 201, 'POST /voice/previews');
    const cards = page.getByTestId('preview-result');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="preview-result"]').length === 2, null, {
      timeout: 60_000,
    });
    const shownModels = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-model')));
    assertEqual(new Set(shownModels).size, 2, `one column per model (${shownModels.join(', ')})`);
    const boxes = await Promise.all([cards.nth(0).boundingBox(), cards.nth(1).boundingBox()]);
    assert(Math.abs(boxes[0]!.y - boxes[1]!.y) < 5 && boxes[0]!.x < boxes[1]!.x, 'the two previews sit side by side');

    // Two versions ticked in the history play side by side.
    const rows = page.getByTestId('history-row');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-row"]').length >= 2);
    await rows.nth(0).getByTestId('history-compare').check();
    await rows.nth(1).getByTestId('history-compare').check();
    const panel = page.getByTestId('compare-panel');
    await panel.waitFor();
    assertEqual(await panel.getByTestId('compare-card').count(), 2, 'two versions compared');
    const played = panel.getByTestId('compare-card').nth(1);
    await played.getByTestId('result-play').click();
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('[data-testid="compare-card"] audio')).some(
        (a) => (a as HTMLAudioElement).currentTime > 0.2,
      ),
    );
    // The preview's words light as it plays, as the playground's do: the lit word is one the audio has reached.
    const transcript = played.getByTestId('preview-player-transcript');
    const lit = transcript.locator('span[data-lit]');
    await lit.waitFor();
    const [litStart, now] = await Promise.all([
      lit.getAttribute('data-start').then(Number),
      played.getByTestId('result-audio').evaluate((a: HTMLAudioElement) => a.currentTime),
    ]);
    assert(litStart <= now + 0.25, `the lit word starts at ${litStart} s, the preview is at ${now} s`);
    assert((await transcript.innerText()).includes('The quick brown fox jumps over the lazy dog'), 'the transcript is the text');
    await played.getByTestId('result-play').click();
    await shot('text-to-voice-en');
  });

  test('text to voice after a reload: activating a version of the history proposes a name from its prompt', async () => {
    const page = env.page;
    await env.ui.goto('/app/text-to-voice');
    await page.getByTestId('text-to-voice-page').waitFor();
    // The form's name is gone with the reload; the versions are the server's.
    await page.reload();
    await page.getByTestId('text-to-voice-page').waitFor();
    assertEqual(await page.getByTestId('design-name').inputValue(), '', 'the form starts empty again');
    const row = page
      .getByTestId('history-row')
      .filter({ has: page.getByTestId('history-activate') })
      .first();
    await row.getByTestId('history-activate').click();
    const dialog = page.getByTestId('activate-dialog');
    await dialog.waitFor();
    assertEqual(await page.getByTestId('activate-name').inputValue(), 'deep calm male voice', 'a name from the prompt');
    assert(await page.getByTestId('activate-confirm').isEnabled(), 'the dialog can go on');
    await page.getByTestId('activate-cancel').click();
    await dialog.waitFor({ state: 'detached' });
  });

  test('the playground and a library voice open the mixer; two voices with weights preview and save as my voice', async () => {
    const page = env.page;
    // From the playground's voice card: the voice in use seeds the mix.
    const english = 'voice_espeak.en-us';
    await env.ui.goto(`/app/playground?voice=${english}`);
    await page.locator(`[data-testid="playground-voice"][data-voice-id="${english}"]`).waitFor();
    await page.getByTestId('playground-mix').click();
    await env.ui.waitForHash(`/app/mix?voice=${english}`);
    await page.locator(`[data-testid="mix-slot"][data-voice-id="${english}"]`).waitFor();

    // From the library: a voice's Mix action.
    await env.ui.goto('/app/voices?model=espeak-ng');
    const first = page.locator('[data-testid="voice-row"][data-model="espeak-ng"]').first();
    await first.waitFor();
    const firstId = await first.getAttribute('data-voice-id');
    await first.getByTestId('voice-mix').click();
    await env.ui.waitForHash(`/app/mix?voice=${encodeURIComponent(firstId!)}`);
    await page.locator(`[data-testid="mix-slot"][data-voice-id="${firstId}"]`).waitFor();

    await page.getByTestId('mix-add').click();
    const picker = page.getByTestId('mix-picker');
    await picker.waitFor();
    const pick = picker
      .locator('[data-testid="voice-row"]')
      .filter({ has: page.locator('[data-testid="mix-pick"]:enabled') })
      .first();
    await pick.waitFor();
    const secondId = await pick.getAttribute('data-voice-id');
    await pick.getByTestId('mix-pick').click();
    await picker.waitFor({ state: 'detached' });
    await page.locator(`[data-testid="mix-slot"][data-voice-id="${secondId}"]`).waitFor();
    // 50/50, then the first slider up: the first becomes the base voice.
    await page.getByTestId('mix-slot').nth(0).getByRole('slider').focus();
    for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowRight');
    assertEqual(await page.getByTestId('mix-percent').nth(0).innerText(), '60%', 'the first weighs 75 of 125');
    await page.locator(`[data-testid="mix-slot"][data-voice-id="${firstId}"] [data-testid="mix-base"]`).waitFor();

    await page.getByTestId('mix-random').click();
    await page.waitForFunction(
      () => ((document.querySelector('[data-testid="mix-preview-text"]') as HTMLTextAreaElement | null)?.value.length ?? 0) > 10,
    );
    const sent = later(page.waitForRequest((r) => isPath(r, '/voice/previews')));
    await page.getByTestId('mix-preview').click();
    const body = (await sent).postDataJSON() as { type: string; model: string; mix: { voice_id: string; weight: number }[] };
    assertEqual(body.type, 'mix', 'a mix preview');
    assertEqual(body.model, 'espeak-ng', 'of the voices’ model');
    assertEqual(
      JSON.stringify(body.mix),
      JSON.stringify([
        { voice_id: firstId, weight: 0.6 },
        { voice_id: secondId, weight: 0.4 },
      ]),
      'the weights',
    );
    await page.getByTestId('preview-result').waitFor({ timeout: 60_000 });
    await waitForWaveform(page);
    await page.getByTestId('result-play').click();

    await page.getByTestId('mix-name').fill('Blend');
    const saved = later(page.waitForResponse((r) => isPath(r.request(), '/voice', 'PUT')));
    await page.getByTestId('mix-save').click();
    const res = await saved;
    assertEqual(res.status(), 201, 'PUT /voice (mix)');
    made.mixId = ((await res.json()) as { id: string }).id;
    await page.locator(`[data-testid="my-voice-row"][data-voice-id="${made.mixId}"][data-type="mix"]`).waitFor();
  });

  test('my voices: rename, delete after a confirmation, and the pages in three languages', async () => {
    const page = env.page;
    const row = page.locator(`[data-testid="my-voice-row"][data-voice-id="${made.mixId}"]`);
    await row.getByTestId('my-voice-rename').click();
    await page.getByTestId('rename-input').fill('Blend two');
    const patched = later(page.waitForResponse((r) => isPath(r.request(), '/voice', 'PATCH')));
    await page.getByTestId('rename-save').click();
    assertEqual((await patched).status(), 200, 'PATCH /voice');
    await row.getByTestId('my-voice-name').getByText('Blend two', { exact: true }).waitFor();

    await row.getByTestId('my-voice-delete').click();
    await page.getByTestId('delete-dialog').waitFor();
    await page.waitForTimeout(300);
    await shot('my-voices-delete-en');
    const deleted = later(page.waitForResponse((r) => isPath(r.request(), '/voice', 'DELETE')));
    await page.getByTestId('delete-confirm').click();
    assertEqual((await deleted).status(), 204, 'DELETE /voice');
    await row.waitFor({ state: 'detached' });
    const gone = await fetch(`${env.server.baseUrl}/voice?id=${made.mixId}`, { headers: { 'x-sid': await sid() } });
    assertEqual(gone.status, 404, 'the deleted voice answers 404');
    // The clone's own preview plays from the list.
    const clone = page.locator(`[data-testid="my-voice-row"][data-voice-id="${made.cloneId}"]`);
    await clone.getByTestId('voice-preview').click();
    await waitForPlayback(page, 'preview-audio', 0.2);
    await clone.getByTestId('voice-preview').click();
    await clone.locator('[data-testid="voice-preview"][data-state="idle"]').waitFor();

    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      for (const [key, route] of [
        ['myVoices', '/app/my-voices'],
        ['cloning', '/app/voice-cloning'],
        ['textToVoice', '/app/text-to-voice'],
        ['mix', `/app/mix?voice=${encodeURIComponent('voice_espeak.en-us')}`],
      ] as const) {
        await env.ui.goto(route);
        await page.getByTestId('page-title').getByText(TITLES[key][lang], { exact: true }).waitFor();
        if (key === 'textToVoice' || key === 'cloning')
          await page.locator('[data-testid="preview-history"]:not([data-count=""])').waitFor();
        if (key === 'cloning') {
          // The samples list and the recorder in this language.
          await page.locator('[data-testid="sample-row"]').first().waitFor();
          await page.getByTestId('record-start').getByText(RECORD[lang], { exact: true }).waitFor();
        }
        if (key === 'textToVoice') {
          await page.getByTestId('ttv-prompt').fill('a calm voice');
          await page.getByTestId('design-preview-text').fill('Hello there.');
          const ready = page.locator('[data-testid="design-estimate"][data-state="ready"]');
          await ready.waitFor();
          const text = await page.getByTestId('design-estimate-credits').innerText();
          assert(text.includes(ESTIMATE_WORD[lang]), `the estimate is in ${lang}: ${text}`);
        }
        await page.waitForTimeout(300);
        await shot(`design-${key}-${lang}`);
      }
    }
    await env.ui.chooseLanguage('en');
  });
}
