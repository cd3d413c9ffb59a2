import fs from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { assert } from './assert';
import { assertFits, axeViolations } from './layout-checks';

/** Page steps the Dialogue and Studio flows share: the voice picker, checks at a width, a download's bytes. */

/** Picks, in the open voice picker, the first voice whose id is not one of `avoid`; answers its id. */
export async function pickOtherVoice(page: Page, avoid: readonly string[]): Promise<string> {
  const picker = page.getByTestId('voice-picker');
  const rows = picker.locator('[data-testid="voice-row"]');
  await rows.first().waitFor();
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid="voice-picker"] [data-testid="voice-total"]')?.getAttribute('data-fetching') ===
      'false',
  );
  // The voice selected now shows "selected" instead of "use": a row with "use" is another voice.
  const ids = await rows.evaluateAll((els) =>
    els.filter((e) => e.querySelector('[data-testid="voice-select"]')).map((e) => e.getAttribute('data-voice-id') ?? ''),
  );
  const id = ids.find((v) => v && !avoid.includes(v));
  assert(id, `the picker lists a voice other than ${avoid.join(', ')} (${ids.length} listed)`);
  await picker.locator(`[data-testid="voice-row"][data-voice-id="${id}"]`).getByTestId('voice-select').click();
  await picker.waitFor({ state: 'detached' });
  return id;
}

/** At 390 px and 1440 px: nothing beyond the right edge and no serious axe violation; `atWidth` runs at each. */
export async function checkWidths(page: Page, where: string, atWidth: (width: number) => Promise<void>): Promise<void> {
  const problems: string[] = [];
  try {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(viewport);
      await atWidth(viewport.width);
      await assertFits(page, `${where} ${viewport.width}px`);
      for (const v of await axeViolations(page)) problems.push(`${where} ${viewport.width}px: ${v}`);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  assert(problems.length === 0, `${problems.length} axe problems: ${problems.slice(0, 3).join('\n')}`);
}

/** Clicks what downloads a file and answers its name and bytes. */
export async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const event = page.waitForEvent('download');
  await click();
  const download = await event;
  return { name: download.suggestedFilename(), bytes: await fs.readFile((await download.path())!) };
}

/** An MP3 file: an ID3 tag or an MPEG frame's sync at its start. */
export function isMp3(bytes: Buffer): boolean {
  return bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0);
}
