import { SID_KEY } from '../lib/browser';
import type { Page } from '@playwright/test';
import { ensureSignedIn } from '../lib/account';
import { assert, assertEqual } from '../lib/assert';
import { env, shot } from '../lib/env';
import { test } from '../lib/fixtures';
import { waitForSettledPage } from '../lib/layout-checks';
import { checkWidths, downloaded, isMp3, pickOtherVoice } from '../lib/studio';

/** A small book made here: three chapters by their headings, a narrator and two speakers. */
export const BOOK = [
  '# The Station',
  '',
  'The train was late again, and the platform was cold.',
  '',
  'Anna: Do you think it will come at all?',
  '',
  'Ben: It always does, in the end.',
  '',
  '# The Journey',
  '',
  'They watched the fields go by for an hour.',
  '',
  'Anna: Look, the river!',
  '',
  '# The Arrival',
  '',
  'Ben: Here we are at last.',
  '',
  'The town was quiet under the snow.',
  '',
].join('\n');
const CHAPTERS = ['The Station', 'The Journey', 'The Arrival'];

const speakerRow = (page: Page, name: string) => page.locator(`[data-testid="speaker-row"][data-speaker="${name}"]`);

/** Maps a speaker to a voice no other speaker has; answers the voice. */
async function mapSpeaker(page: Page, name: string, avoid: string[]): Promise<string> {
  await speakerRow(page, name).getByTestId('speaker-choose').click();
  const voice = await pickOtherVoice(page, avoid);
  await page.locator(`[data-testid="speaker-row"][data-speaker="${name}"][data-voice-id="${voice}"]`).waitFor();
  return voice;
}

async function convertAndDownload(page: Page, projectId: string): Promise<void> {
  const estimate = page.locator('[data-testid="convert-estimate"]:not([data-credits=""])');
  await estimate.waitFor();
  assert(Number(await estimate.getAttribute('data-credits')) > 0, 'the price before converting');
  await page.getByTestId('convert-project').click();
  // Polled until every chapter is converted and the project is ready again.
  await page.waitForFunction(
    () => {
      const bars = Array.from(document.querySelectorAll('[data-testid="chapter-progress"]'));
      const page = document.querySelector('[data-testid="project-page"]');
      return (
        bars.length === 3 &&
        bars.every((b) => b.getAttribute('data-percent') === '100') &&
        page?.getAttribute('data-converting') === 'false'
      );
    },
    undefined,
    { timeout: 180_000 },
  );
  const snapshot = page.getByTestId('snapshot-row').first();
  await snapshot.waitFor();
  const mp3 = await downloaded(page, () => snapshot.getByTestId('snapshot-download-mp3').click());
  assert(isMp3(mp3.bytes), `the book as MP3 (${mp3.name}, ${mp3.bytes.length} bytes)`);
  const m4b = await downloaded(page, () => snapshot.getByTestId('snapshot-download-m4b').click());
  assertEqual(m4b.bytes.subarray(4, 8).toString('latin1'), 'ftyp', `an M4B file (${m4b.name})`);
  const zip = await downloaded(page, () => snapshot.getByTestId('snapshot-download-zip').click());
  assertEqual(zip.bytes.subarray(0, 2).toString('latin1'), 'PK', `a zip (${zip.name})`);
  // One chapter's subtitles.
  await page.getByTestId('export-scope').selectOption({ index: 2 });
  const vtt = await downloaded(page, () => snapshot.getByTestId('snapshot-download-vtt').click());
  assert(vtt.bytes.toString('utf8').startsWith('WEBVTT'), `the chapter's subtitles (${vtt.name})`);
  void projectId;
}

/** The Studio: a three-chapter book from import to download (as far as this server's routes go), and the list's delete. */
export function studioTests(): void {
  test('a three-chapter book: import a Markdown file, map speakers to voices, edit, price, convert, download; 390 and 1440 px', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.goto('/app/dashboard');
    await env.ui.chooseLanguage('en');
    await page.getByTestId('nav-studio').first().click();
    await env.ui.waitForHash('/app/studio');
    await page.getByTestId('studio-page').waitFor();
    await waitForSettledPage(page);
    assertEqual(await env.ui.text('page-title'), 'Studio', 'the title');

    // Import: the file dropped on the zone (here: given to its picker), named after the file.
    await page.getByTestId('studio-create').click();
    await page.getByTestId('studio-create-mode').getByText('Import a file').click();
    await page
      .getByTestId('studio-import-file')
      .setInputFiles({ name: 'winter-train.md', mimeType: 'text/markdown', buffer: Buffer.from(BOOK) });
    await page.getByTestId('studio-import-chosen').waitFor();
    await page.getByTestId('studio-create-submit').click();
    await page.getByTestId('project-page').waitFor();
    const projectId = (await page.getByTestId('project-page').getAttribute('data-id'))!;
    await env.ui.waitForHash(`/app/studio/${projectId}`);
    assertEqual(await env.ui.text('page-title'), 'winter-train', 'the project is named after its file');

    // Three chapters from the headings, in order; the first one open.
    await page.locator('[data-testid="chapter-list"][data-count="3"]').waitFor();
    const names = await page.getByTestId('chapter-item').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    CHAPTERS.forEach((c, i) => assert(names[i]?.includes(c), `chapter ${i + 1} is ${c}: ${names[i]}`));
    await page.locator('[data-testid="chapter-view"][data-count="3"]').waitFor();
    assertEqual(await page.getByTestId('chapter-title').innerText(), CHAPTERS[0], 'the first chapter is shown');

    // The speakers found: Anna, Ben and the narrator; each mapped to a voice once, for every paragraph.
    for (const s of ['Anna', 'Ben']) await speakerRow(page, s).waitFor();
    const narrator = (
      await page.getByTestId('speaker-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-speaker')))
    ).filter((s) => s !== 'Anna' && s !== 'Ben');
    assertEqual(narrator.length, 1, 'one narrator');
    const fallback = (await page.locator('[data-testid="paragraph"]').first().getAttribute('data-voice-id'))!;
    const anna = await mapSpeaker(page, 'Anna', [fallback]);
    const ben = await mapSpeaker(page, 'Ben', [fallback, anna]);
    await page.locator(`[data-testid="paragraph"][data-speaker="Anna"][data-voice-id="${anna}"]`).waitFor();
    await page.locator(`[data-testid="paragraph"][data-speaker="Ben"][data-voice-id="${ben}"]`).waitFor();

    // A paragraph's text and the pause after it, saved when they lose focus.
    const first = page.getByTestId('paragraph').first();
    const firstId = (await first.getAttribute('data-id'))!;
    const saved = (field: string) =>
      page.waitForResponse(
        (r) =>
          r.request().method() === 'PATCH' &&
          new URL(r.url()).pathname.endsWith(`/paragraphs/${firstId}`) &&
          field in ((r.request().postDataJSON() as object) ?? {}),
      );
    const edited = 'The train was late again, and the platform was very cold.';
    let answer = saved('text');
    await first.getByTestId('paragraph-text').fill(edited);
    await first.getByTestId('paragraph-text').blur();
    assertEqual((await answer).status(), 200, 'the text saved');
    answer = saved('pause_after_ms');
    const pause = page.locator(`[data-testid="paragraph"][data-id="${firstId}"]`).getByTestId('paragraph-pause');
    await pause.fill('800');
    await pause.blur();
    assertEqual((await answer).status(), 200, 'the pause saved');
    await page.reload();
    await page.locator(`[data-testid="paragraph"][data-id="${firstId}"]`).waitFor();
    const after = page.locator(`[data-testid="paragraph"][data-id="${firstId}"]`);
    assertEqual(await after.getByTestId('paragraph-text').inputValue(), edited, 'the text kept');
    assertEqual(await after.getByTestId('paragraph-pause').inputValue(), '800', 'the pause kept');

    // Convert and download where this server has the routes; else each such control says it comes later.
    const panel = page.getByTestId('convert-panel');
    await page.waitForFunction(() => {
      const e = document.querySelector('[data-testid="convert-estimate"]');
      return e?.getAttribute('data-credits') !== '' || document.querySelector('[data-testid="convert-later"]') !== null;
    });
    if ((await panel.getAttribute('data-available')) === 'true') await convertAndDownload(page, projectId);
    else {
      assert(await page.getByTestId('convert-project').isDisabled(), 'Convert is disabled until the route exists');
      assert(await page.getByTestId('convert-chapter').isDisabled(), 'Regenerate chapter too');
      await page.getByTestId('convert-later').waitFor();
      await page.getByTestId('snapshots-later').waitFor();
      await page.getByTestId('player-later').waitFor();
      assert(await page.getByTestId('paragraph-play').first().isDisabled(), 'Play waits for the paragraph audio route');
      assert(await page.getByTestId('chapter-add').isDisabled(), 'adding a chapter waits for its route');
    }
    await shot('studio-editor-en');

    // A phone reads: the chapters in a drawer, another chapter opened; a desktop edits with the side list.
    await checkWidths(page, `/app/studio/${projectId}`, async (width) => {
      await page.getByTestId('project-page').waitFor();
      if (width === 390) {
        await page.getByTestId('chapters-open').click();
        await page.locator('[data-testid="chapter-item"]').nth(1).getByTestId('chapter-select').click();
        await page.locator('[data-testid="chapter-title"]', { hasText: CHAPTERS[1]! }).waitFor();
        await page.getByTestId('chapter-list').waitFor({ state: 'detached' });
        await shot('studio-editor-phone-en');
      } else {
        await page.getByTestId('chapter-list').waitFor();
        await page.getByTestId('paragraph-text').first().waitFor();
      }
    });
  });

  test('a conversion that fails for one paragraph: shown on the project, chapter and paragraph, retried; 390 and 1440 px', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.goto('/app/studio');
    await env.ui.chooseLanguage('en');
    await page.getByTestId('studio-page').waitFor();
    // The second paragraph passes as written (a conversion reviews the written paragraphs before it starts) and is
    // refused as it is spoken: the project's pronunciation dictionary turns "Blimey" into a word moderation refuses.
    const sid = (await page.evaluate((k) => localStorage.getItem(k), SID_KEY)) ?? '';
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${env.server.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'x-sid': sid, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assertEqual(res.status, 200, `POST ${path}`);
      return (await res.json()) as Record<string, any>;
    };
    const dict = await api('/v1/pronunciation-dictionaries/add-from-rules', {
      name: `Refused ${Date.now()}`,
      rules: [{ type: 'alias', string_to_replace: 'Blimey', alias: 'shit' }],
    });
    const made = await api('/v1/studio/projects', {
      name: `Refused ${Date.now()}`,
      text: '# One\n\nFirst words.\n\nOh Blimey, come in.\n\n# Two\n\nSecond words.',
      text_format: 'markdown',
      default_paragraph_voice_id: 'voice_espeak.en-us',
      pronunciation_dictionary_locators: [JSON.stringify({ pronunciation_dictionary_id: dict.id, version_id: dict.version_id })],
    });
    await env.ui.goto(`/app/studio/${encodeURIComponent(made.project.project_id as string)}`);
    await page.getByTestId('project-page').waitFor();
    await page.locator('[data-testid="chapter-view"][data-count="2"]').waitFor();
    const panel = page.getByTestId('convert-panel');
    await page.waitForFunction(() => {
      const e = document.querySelector('[data-testid="convert-estimate"]');
      return e?.getAttribute('data-credits') !== '' || document.querySelector('[data-testid="convert-later"]') !== null;
    });
    if ((await panel.getAttribute('data-available')) !== 'true') return;
    await page.getByTestId('convert-project').click();

    // The project says its last conversion failed, and why; the chapter names its failed paragraph; the paragraph too.
    const failure = page.locator('[data-testid="project-error"][data-code="CONTENT_REFUSED"][data-failed="1"]');
    await failure.waitFor({ timeout: 180_000 });
    await page.locator('[data-testid="project-page"][data-converting="false"]').waitFor();
    assert((await failure.innerText()).includes('nothing was charged'), 'the reason, in the page language');
    await page.locator('[data-testid="chapter-error"][data-count="1"]').waitFor();
    await page
      .locator('[data-testid="chapter-item"]')
      .first()
      .locator('[data-testid="chapter-failed"][data-count="1"]')
      .waitFor();
    const refused = page.locator('[data-testid="paragraph"][data-failed="CONTENT_REFUSED"]');
    await refused.getByTestId('paragraph-error').waitFor();
    assertEqual(await page.locator('[data-testid="paragraph"][data-failed=""]').count(), 1, 'the other paragraph converted');
    await checkWidths(page, 'studio failure', async () => {
      await page.getByTestId('project-error').waitFor();
      await page.getByTestId('paragraph-error').waitFor();
    });
    await shot('studio-failure-en');

    // Retried as it is: refused again, still shown. Edited: its failure no longer stands; converted again: none left.
    const retried = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/convert'));
    await refused.getByTestId('paragraph-retry').click();
    assertEqual((await retried).status(), 422, 'the retry is refused as well');
    await refused.getByTestId('paragraph-error').waitFor();
    const id = (await refused.getAttribute('data-id'))!;
    const text = page.locator(`[data-testid="paragraph"][data-id="${id}"]`).getByTestId('paragraph-text');
    await text.fill('This is spoken.');
    await text.blur();
    await page.locator(`[data-testid="paragraph"][data-id="${id}"][data-failed=""]`).waitFor();
    await page.getByTestId('chapter-error').waitFor({ state: 'detached' });
    await page.getByTestId('project-retry').click();
    await page.getByTestId('project-error').waitFor({ state: 'detached', timeout: 180_000 });
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="project-page"]')?.getAttribute('data-converting') === 'false' &&
        Array.from(document.querySelectorAll('[data-testid="chapter-progress"]')).every(
          (b) => b.getAttribute('data-percent') === '100',
        ),
      undefined,
      { timeout: 180_000 },
    );
    // Both paragraphs of the chapter converted once the chapter is read again.
    await page.waitForFunction(
      () =>
        document.querySelectorAll('[data-testid="paragraph"][data-converted="true"]').length === 2 &&
        document.querySelectorAll('[data-testid="paragraph-error"]').length === 0,
      undefined,
      { timeout: 60_000 },
    );
  });

  test('the Studio list: a project from pasted text, its chapters and state shown, deleted after a confirmation; 390 and 1440 px', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.goto('/app/studio');
    await page.getByTestId('studio-page').waitFor();
    await page.getByTestId('studio-create').click();
    const name = `Pasted ${Date.now()}`;
    await page.getByTestId('studio-create-name').fill(name);
    await page.getByTestId('studio-create-text').fill('# One\n\nFirst words.\n\n# Two\n\nSecond words.');
    await page.getByTestId('studio-create-submit').click();
    await page.getByTestId('project-page').waitFor();
    await page.locator('[data-testid="chapter-view"][data-count="1"]').waitFor();
    await page.getByTestId('project-back').click();
    const row = page.locator(`[data-testid="project-row"][data-name="${name}"]`);
    await row.locator('[data-testid="project-chapters"]', { hasText: '2 chapters' }).waitFor();
    assertEqual(await row.getAttribute('data-state'), 'default', 'ready');
    await checkWidths(page, '/app/studio', async () => {
      await row.waitFor();
    });
    await row.getByTestId('project-delete').click();
    await page.getByTestId('project-delete-confirm').click();
    await row.waitFor({ state: 'detached' });
  });
}
