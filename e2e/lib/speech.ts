import type { Locator, Page } from '@playwright/test';
import { assert } from './assert';

/** Page steps of the synthesis screens: filters, the voice picker, the result's audio and waveform. */

/**
 * Closes the toasts on screen, as a person would before reaching under one: they sit at the bottom right, where a
 * long list's options can open.
 */
export async function dismissToasts(page: Page): Promise<void> {
  const close = page.locator('.mantine-Notifications-root .mantine-Notification-closeButton');
  // A short wait each: a toast already closing on its own (its button leaving, never stable) must not hold the flow
  // for the page's whole timeout.
  for (let i = await close.count(); i > 0; i--)
    await close
      .first()
      .click({ timeout: 1500 })
      .catch(() => undefined);
  // A closed toast slides out to the right before it leaves the page (slowly on a loaded machine): a check of the
  // page's width right after would find it sticking out. Wait until it has gone.
  await page
    .waitForFunction(
      () => !document.querySelector('.mantine-Notifications-root .mantine-Notifications-notification'),
      undefined,
      {
        timeout: 10_000,
      },
    )
    .catch(() => undefined);
}

/** Picks an option of a Mantine Select by its visible label. */
export async function chooseOption(page: Page, select: Locator, label: string | RegExp): Promise<void> {
  await dismissToasts(page);
  await select.click();
  await page.getByRole('option', { name: label }).first().click();
}

/** Waits until the list under `root` (a CSS selector) has loaded and shows rows of this model only; answers how many. */
export async function waitForRowsOfModel(page: Page, root: string, model: string): Promise<number> {
  const handle = await page.waitForFunction(
    ([r, m]) => {
      const settled = document.querySelector(`${r} [data-testid="voice-total"]`)?.getAttribute('data-fetching') === 'false';
      const rows = Array.from(document.querySelectorAll(`${r} [data-testid="voice-row"]`));
      return settled && rows.length > 0 && rows.every((row) => row.getAttribute('data-model') === m) ? rows.length : 0;
    },
    [root, model] as const,
  );
  return (await handle.jsonValue()) as number;
}

/** The character count the server uses: everything but whitespace, by code point. */
export function billable(text: string): number {
  return [...text].filter((c) => !/\s/u.test(c)).length;
}

export async function audioState(
  page: Page,
  testId: string,
): Promise<{ src: string; time: number; paused: boolean; duration: number }> {
  return page.evaluate((id) => {
    const a = document.querySelector(`[data-testid="${id}"]`) as HTMLAudioElement | null;
    return { src: a?.currentSrc ?? '', time: a?.currentTime ?? 0, paused: a?.paused ?? true, duration: a?.duration ?? 0 };
  }, testId);
}

/** Waits until the audio element has played past `seconds`. */
export async function waitForPlayback(page: Page, testId: string, seconds = 0.3, timeout = 60_000): Promise<void> {
  await page
    .waitForFunction(
      ([id, s]) => {
        const a = document.querySelector(`[data-testid="${id}"]`) as HTMLAudioElement | null;
        return !!a && a.currentTime > (s as number);
      },
      [testId, seconds] as const,
      { timeout },
    )
    .catch(async () => {
      throw new Error(`${testId} did not play past ${seconds} s: ${JSON.stringify(await audioState(page, testId))}`);
    });
}

/** The waveform wavesurfer drew: its canvases (in its shadow DOM) and the duration it covers. */
export async function waveform(page: Page): Promise<{ duration: number; canvases: number; width: number }> {
  const host = page.getByTestId('waveform');
  const duration = Number((await host.getAttribute('data-duration')) || 0);
  const canvases = host.locator('canvas');
  const count = await canvases.count();
  let width = 0;
  for (let i = 0; i < count; i++) width += (await canvases.nth(i).boundingBox())?.width ?? 0;
  return { duration, canvases: count, width };
}

export async function waitForWaveform(
  page: Page,
  // A streamed result's waveform grows as the audio arrives: wait until it covers at least this much.
  minSeconds = 0,
  timeout = 60_000,
): Promise<{ duration: number; canvases: number; width: number }> {
  await page.waitForFunction(
    (min) => Number(document.querySelector('[data-testid="waveform"]')?.getAttribute('data-duration')) > min,
    minSeconds,
    { timeout },
  );
  // wavesurfer clears and redraws its canvases when its box changes size (a viewport change just before,
  // say): wait for the drawing to come back rather than read it mid-redraw.
  const deadline = Date.now() + 10_000;
  let wave = await waveform(page);
  while (!(wave.canvases > 0 && wave.width > 0) && Date.now() < deadline) {
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done(null))));
    wave = await waveform(page);
  }
  assert(wave.canvases > 0 && wave.width > 0, `the waveform has drawn canvases (${JSON.stringify(wave)})`);
  return wave;
}
