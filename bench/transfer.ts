/**
 * Bytes over the wire for a cold first visit of the console's home and usage pages: headless Chromium with an empty
 * cache and fresh storage, every response's `encodedDataLength` (headers and body as transferred, so compressed
 * where the server compressed) summed from the DevTools protocol's Network events until the page is idle.
 *
 * `npx tsx bench/run.ts --only transfer` (builds the console when there is no build); `TRANSFER_DETAIL=1` also prints
 * each response (page, kind, bytes, address).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { measureBundle, WEB_DIST } from './bundle.js';
import { startServer } from './server.js';

/** The goal for a cold first page, everything transferred included. */
export const COLD_PAGE_BUDGET_KB = 250;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface PageTransfer {
  page: string;
  requests: number;
  /** Bytes over the wire by kind (js, css, json, html, other). */
  bytes: Record<string, number>;
  total: number;
  /** The same bodies decoded: what an uncompressing server would have sent (headers excluded). */
  decoded: number;
}

function kind(mime: string, url: string): string {
  if (mime.includes('javascript')) return 'js';
  if (mime.includes('css')) return 'css';
  if (mime.includes('json')) return 'json';
  if (mime.includes('html')) return 'html';
  if (/\.(svg|png|jpe?g|webp|woff2?)$/.test(new URL(url).pathname)) return 'static';
  return 'other';
}

export async function measureTransfer(): Promise<PageTransfer[]> {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) measureBundle(WEB_DIST, { build: true });
  const server = await startServer({ webDist: WEB_DIST });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic'],
  });
  try {
    const out: PageTransfer[] = [];
    for (const [name, hash] of [
      ['home', '/'],
      ['usage', '/app/usage'],
    ] as const) {
      // A new context: empty cache, no local storage, so the console creates its account as a first visitor does.
      const context = await browser.newContext();
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      const seen = new Map<string, { url: string; mime: string }>();
      const bytes: Record<string, number> = {};
      let requests = 0;
      let decoded = 0;
      cdp.on('Network.dataReceived', (e) => (decoded += e.dataLength));
      cdp.on('Network.responseReceived', (e) => seen.set(e.requestId, { url: e.response.url, mime: e.response.mimeType }));
      cdp.on('Network.loadingFinished', (e) => {
        const r = seen.get(e.requestId);
        if (!r || r.url.startsWith('data:')) return;
        const k = kind(r.mime, r.url);
        bytes[k] = (bytes[k] ?? 0) + e.encodedDataLength;
        requests += 1;
        if (process.env.TRANSFER_DETAIL) console.log(`${name}\t${k}\t${e.encodedDataLength}\t${r.url}`);
      });
      await page.goto(`${server.url}/#${hash}`, { waitUntil: 'networkidle', timeout: 120_000 });
      out.push({ page: name, requests, bytes, total: Object.values(bytes).reduce((a, b) => a + b, 0), decoded });
      await context.close();
    }
    return out;
  } finally {
    await browser.close();
    await server.stop();
  }
}

export async function transferRows() {
  const pages = await measureTransfer();
  for (const p of pages) {
    const parts = Object.entries(p.bytes)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)} KB`)
      .join(', ');
    console.log(
      `cold ${p.page}: ${(p.total / 1024).toFixed(1)} KB in ${p.requests} requests (${parts}); bodies decoded ${(p.decoded / 1024).toFixed(1)} KB`,
    );
  }
  return pages.flatMap((p) => [
    {
      metric: `cold ${p.page} page: bytes transferred (all requests)`,
      value: Math.round((p.total / 1024) * 10) / 10,
      unit: 'KB',
      target: `≤ ${COLD_PAGE_BUDGET_KB}`,
      pass: p.total <= COLD_PAGE_BUDGET_KB * 1024,
    },
    {
      metric: `cold ${p.page} page: JavaScript transferred`,
      value: Math.round(((p.bytes.js ?? 0) / 1024) * 10) / 10,
      unit: 'KB',
    },
  ]);
}
