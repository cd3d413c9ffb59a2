import { ensureSignedIn } from '../lib/account';
import { assert, assertEqual } from '../lib/assert';
import { env, shot } from '../lib/env';
import { test } from '../lib/fixtures';
import { waitForSettledPage } from '../lib/layout-checks';
import { audioState, waitForPlayback, waitForWaveform } from '../lib/speech';
import { checkWidths, downloaded, isMp3, pickOtherVoice } from '../lib/studio';

const LINES = ['Good morning! Did you sleep well?', 'Very well, thank you. Shall we start the lesson?'];

async function turnVoices(): Promise<string[]> {
  return env.page.getByTestId('dialogue-turn').evaluateAll((els) => els.map((e) => e.getAttribute('data-voice-id') ?? ''));
}

/** The Dialogue page: two speakers composed, priced, generated, played and downloaded, at a phone's and a desktop's width. */
export function dialogueTests(): void {
  test('a two-speaker dialogue: compose (add, reorder, remove turns), price, generate, play, download; 390 and 1440 px', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.goto('/app/dashboard');
    await env.ui.chooseLanguage('en');
    await page.getByTestId('nav-dialogue').first().click();
    await env.ui.waitForHash('/app/dialogue');
    await page.getByTestId('dialogue-page').waitFor();
    await waitForSettledPage(page);
    assertEqual(await env.ui.text('page-title'), 'Dialogue', 'the title');

    // Two turns to start, each with a voice; the second speaker is given another voice through the picker.
    await page.locator('[data-testid="dialogue-turns"][data-count="2"]').waitFor();
    const [first] = await turnVoices();
    assert(first, 'the first turn has a voice');
    await page.getByTestId('dialogue-turn-voice').nth(1).click();
    const second = await pickOtherVoice(page, [first!]);
    await page.locator(`[data-testid="dialogue-turn"][data-voice-id="${second}"]`).waitFor();
    await page.locator('[data-testid="dialogue-voices"][data-count="2"]').waitFor();

    // A third turn takes the first speaker's voice (the conversation alternates); moved up, then removed.
    await page.getByTestId('dialogue-add').click();
    await page.locator('[data-testid="dialogue-turns"][data-count="3"]').waitFor();
    assertEqual((await turnVoices())[2], first, 'a new turn alternates back to the first voice');
    const texts = page.getByTestId('dialogue-turn-text');
    await texts.nth(2).fill('A third line.');
    await page.getByTestId('dialogue-turn-up').nth(2).click();
    assertEqual(await texts.nth(1).inputValue(), 'A third line.', 'moved up one place');
    await page.getByTestId('dialogue-turn-remove').nth(1).click();
    await page.locator('[data-testid="dialogue-turns"][data-count="2"]').waitFor();
    assertEqual(JSON.stringify(await turnVoices()), JSON.stringify([first, second]), 'the two speakers, in order');

    // The price of both turns together, asked with the dialogue's inputs.
    const estimated = page.waitForRequest(
      (r) =>
        new URL(r.url()).pathname === '/tts/estimate' && ((r.postDataJSON() as { inputs?: unknown[] }).inputs?.length ?? 0) === 2,
    );
    await texts.nth(0).fill(LINES[0]!);
    await texts.nth(1).fill(LINES[1]!);
    const sent = (await estimated).postDataJSON() as { inputs: { text: string; voice_id: string }[] };
    assertEqual(
      JSON.stringify(sent.inputs.map((i) => i.voice_id)),
      JSON.stringify([first, second]),
      'each turn priced with its voice',
    );
    const estimate = page.locator('[data-testid="playground-estimate"][data-state="ready"]');
    await estimate.waitFor();
    const credits = Number(await estimate.getAttribute('data-credits'));
    assert(credits > 0, `a price before generating (${credits})`);

    // Generate: one request with both turns; the result plays with its waveform.
    const generated = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/text-to-dialogue');
    await page.getByTestId('playground-generate').click();
    const response = await generated;
    assertEqual(response.status(), 200, 'POST /v1/text-to-dialogue');
    const body = response.request().postDataJSON() as { inputs: { text: string; voice_id: string }[] };
    assertEqual(
      JSON.stringify(body.inputs),
      JSON.stringify([
        { text: LINES[0], voice_id: first },
        { text: LINES[1], voice_id: second },
      ]),
      'both turns, in order, each with its voice',
    );
    await page.getByTestId('dialogue-result').waitFor();
    const wave = await waitForWaveform(page, 1);
    assert(wave.duration > 1, `the dialogue lasts more than a second (${wave.duration})`);
    // It plays as soon as it has arrived; paused, then played again from where it stopped.
    await waitForPlayback(page, 'result-audio', 0.3);
    await page.getByTestId('result-play').click();
    await page.locator('[data-testid="result-play"][data-playing="false"]').waitFor();
    const stopped = (await audioState(page, 'result-audio')).time;
    await page.getByTestId('result-play').click();
    await waitForPlayback(page, 'result-audio', stopped + 0.2);
    await page.getByTestId('result-play').click();
    await page.locator('[data-testid="result-play"][data-playing="false"]').waitFor();

    // Download: the MP3 the page made, named as every Polyvox download.
    const file = await downloaded(page, () => page.getByTestId('dialogue-download').click());
    assert(/^polyvox-dialogue-\d{8}-\d{6}\.mp3$/.test(file.name), `the file's name: ${file.name}`);
    assert(isMp3(file.bytes) && file.bytes.length > 2000, `an MP3 file (${file.bytes.length} bytes)`);
    await shot('dialogue-en');

    // A phone reads and plays it; a desktop edits it: neither scrolls sideways.
    await checkWidths(page, '/app/dialogue', async (width) => {
      await waitForWaveform(page, 1);
      if (width === 390) {
        await page.getByTestId('result-play').scrollIntoViewIfNeeded();
        await page.getByTestId('result-play').click();
        await page.waitForFunction(() => {
          const a = document.querySelector('[data-testid="result-audio"]') as HTMLAudioElement | null;
          return !!a && !a.paused;
        });
        await page.getByTestId('result-play').click();
        await shot('dialogue-phone-en');
      }
    });
    assert((await audioState(page, 'result-audio')).paused, 'paused at the end');
  });
}
