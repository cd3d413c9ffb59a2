import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { TestApp } from './app.js';

/** ffmpeg processes this test process started (the app runs in-process), read from /proc. */
export function ffmpegChildren(): number {
  let n = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // comm is in parentheses and may hold spaces; the fields after it are space separated.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && comm.startsWith('ffmpeg')) n += 1;
    } catch {
      // the process ended while we looked
    }
  }
  return n;
}

/** Polls `check` until it holds; returns whether it did (the caller asserts, so a miss fails clearly). */
export async function eventually(check: () => Promise<boolean> | boolean, tries = 300, every = 50): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, every));
  }
  return false;
}

/**
 * Polls `check` until it holds or `ms` pass; returns whether it did. For waits across a process's start or
 * a job's run, where a machine other work keeps busy takes far longer than an idle one: the bound is time
 * (generous, only against a hang), not a count of tries whose pace the load decides.
 */
export async function within(check: () => Promise<boolean> | boolean, ms = 300_000, every = 50): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, every));
  }
}

/** A POST over a raw socket the test can destroy at any moment. */
export function rawPost(base: string, path: string, body: unknown, headers: Record<string, string>) {
  const payload = JSON.stringify(body);
  const req = http.request(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers },
  });
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  response.catch(() => {});
  req.end(payload);
  return { req, response };
}

export async function heldHolds(t: TestApp, accountId: string) {
  return t.ctx.db.kysely
    .selectFrom('credit_holds')
    .select(['id', 'status'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'held')
    .execute();
}

export async function holdsOf(t: TestApp, accountId: string) {
  return t.ctx.db.kysely
    .selectFrom('credit_holds')
    .select(['id', 'status'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
}

export const longText = (sentences: number, what = 'a text that nobody will wait for') =>
  Array.from({ length: sentences }, (_, i) => `Sentence number ${i + 1} belongs to ${what}.`).join(' ');

/** Several POST /tts requests pipelined on one raw connection; counts the bytes that come back. */
export function pipeline(base: string, sid: string, bodies: unknown[]) {
  const url = new URL(base);
  const socket = net.connect(Number(url.port), url.hostname);
  let received = 0;
  socket.on('data', (d: Buffer) => (received += d.length));
  socket.on('error', () => {});
  for (const body of bodies) {
    const payload = JSON.stringify(body);
    socket.write(
      `POST /tts HTTP/1.1\r\nhost: ${url.host}\r\nx-sid: ${sid}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
    );
  }
  return { received: () => received, destroy: () => socket.destroy() };
}
