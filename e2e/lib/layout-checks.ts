import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT } from './server';
import { assert } from './assert';

const AXE = fs.readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Elements that stick out of the viewport's right edge (and are not clipped by a scrolling or hidden-overflow box). */
export function overflowReport(page: Page): Promise<{ scrollWidth: number; innerWidth: number; offenders: string[] }> {
  // A string, not a function: the test runner's transform would add helpers the page does not have.
  return page.evaluate(OVERFLOW_SCRIPT) as Promise<{ scrollWidth: number; innerWidth: number; offenders: string[] }>;
}

/**
 * Asserts that the page fits its width: no horizontal scroll, nothing beyond the right edge. Right after a resize the
 * shell's side bar may still be sliding away (a CSS transition): it waits until the page fits or a few seconds pass,
 * then judges what stays.
 */
export async function assertFits(page: Page, where: string): Promise<void> {
  await page
    .waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, undefined, { timeout: 5_000 })
    .catch(() => undefined);
  const report = await overflowReport(page);
  assert(report.scrollWidth <= report.innerWidth, `${where}: scrollWidth ${report.scrollWidth} > ${report.innerWidth}`);
  // The offenders are named in the message's first line, which is what a CI summary keeps.
  assert(report.offenders.length === 0, `${where}: nothing beyond the right edge, found ${report.offenders.join(' | ')}`);
}

const OVERFLOW_SCRIPT = `(() => {
  const innerWidth = window.innerWidth;
  const describe = (el) => {
    const id = el.getAttribute('data-testid');
    const cls = typeof el.className === 'string' ? el.className.split(' ').slice(0, 2).join('.') : '';
    const text = (el.textContent || '').trim().slice(0, 30);
    return el.tagName.toLowerCase() + (id ? '[data-testid=' + id + ']' : '') + (cls ? '.' + cls : '') + ' "' + text + '" right=' + Math.round(el.getBoundingClientRect().right);
  };
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === 'clip') return true;
      // Any box that clips within the viewport hides the rest (a badge's own hidden overflow inside a scrolling table
      // does not end the walk: the table's scroll box further up is what clips it).
      if (x !== 'visible' && p.getBoundingClientRect().right <= innerWidth + 1) return true;
    }
    return false;
  };
  const offenders = [];
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0 || rect.right <= innerWidth + 1) continue;
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    if (clipped(el)) continue;
    offenders.push(describe(el));
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth, offenders: offenders.slice(0, 8) };
})()`;

/** Serious and critical axe-core violations on the page as it is. */
export async function axeViolations(page: Page): Promise<string[]> {
  const has = await page.evaluate(() => 'axe' in window);
  // Evaluated through the driver: the console's CSP (script-src 'self') refuses inline script tags.
  if (!has) await page.evaluate(AXE);
  return page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then(({ violations }) => violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' — ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' ' + (n.html || '').slice(0, 120) + ' [' + ((n.any[0] || n.all[0] || {}).message || '') + ']').join(', ')))`) as Promise<
    string[]
  >;
}

/** What keeps a page from settling: the h1 count and the visible busy markers. */
export function busyReport(page: Page): Promise<string> {
  return page.evaluate(`(() => {
    const h1 = Array.from(document.querySelectorAll('h1')).map((h) => (h.textContent || '').slice(0, 40) + (h.checkVisibility() ? '' : ' (hidden)'));
    const busy = Array.from(document.querySelectorAll('.mantine-Loader-root, .mantine-Skeleton-root[data-visible="true"], [aria-busy="true"]'))
      .filter((el) => el.checkVisibility())
      .map((el) => el.tagName + '.' + String(el.className).slice(0, 60));
    return 'h1: ' + JSON.stringify(h1) + ' busy: ' + JSON.stringify(busy);
  })()`) as Promise<string>;
}

async function settledOnce(page: Page, timeout: number): Promise<void> {
  // A function, not a string: the console's CSP refuses eval, which a polled string needs.
  await page.waitForFunction(
    () => {
      const h1 = document.querySelector('h1:not([data-a11y-seen])');
      if (!h1 || !h1.checkVisibility()) return false;
      const busy = Array.from(
        document.querySelectorAll('.mantine-Loader-root, .mantine-Skeleton-root[data-visible="true"], [aria-busy="true"]'),
      );
      return busy.every((el) => !el.checkVisibility());
    },
    undefined,
    { timeout },
  );
  // Marked, so the next route's wait does not take this page's heading for its own.
  await page.evaluate(`document.querySelectorAll('h1').forEach((h) => h.setAttribute('data-a11y-seen', ''))`);
}

/**
 * Waits until the route shows its page heading and no loader is spinning. A navigation that replaces the
 * document (the wait's context is destroyed) is waited through, up to 30 s in all.
 */
export async function waitForSettledPage(page: Page): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await settledOnce(page, Math.max(1, deadline - Date.now()));
      return;
    } catch (error) {
      const message = (error as Error).message;
      if (Date.now() >= deadline || !/context was destroyed|navigation/i.test(message)) throw error;
    }
  }
}
