/**
 * A download that resumes: bytes go to NAME.part, and a later run asks the server for the rest (an HTTP
 * Range request) instead of starting again. What arrives is checked against the catalogue's size and,
 * where it has one, its SHA-256; a download that fails a check is deleted, so the next run starts clean.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import { APPROXIMATE_FACTOR, formatBytes, type CatalogueDownload } from './catalogue.js';

/** A refusal with a message for the operator; nothing of it is installed. */
/** Why an install stopped: a key the console's messages name (models/install-messages.ts) and its values. */
export type InstallProblem =
  | 'unreachable'
  | 'http_status'
  | 'size_mismatch'
  | 'checksum_mismatch'
  | 'interrupted'
  | 'not_in_catalogue'
  | 'already_installed'
  | 'not_runnable'
  | 'unreadable_archive'
  | 'unsafe_archive'
  | 'failed';

/** An install refused or stopped: its English message (the CLI's) and its problem, told in any language. */
export class InstallError extends Error {
  constructor(
    message: string,
    readonly problem: InstallProblem = 'failed',
    readonly params: Record<string, string | number> = {},
  ) {
    super(message);
  }
}

export interface Progress {
  start(label: string, total: number | undefined, from: number): void;
  advance(bytes: number): void;
  end(): void;
}

/**
 * A bar redrawn in place on a terminal; elsewhere (a log, a Docker build) a plain line at each tenth.
 */
export function progressTo(write: (s: string) => void, tty: boolean): Progress {
  let label = '';
  let total: number | undefined;
  let done = 0;
  let shown = -1;
  const draw = (): void => {
    const frac = total ? Math.min(1, done / total) : undefined;
    if (tty) {
      const width = 30;
      const bar = frac === undefined ? '' : `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '-')}] `;
      const pct = frac === undefined ? '' : `${(frac * 100).toFixed(0).padStart(3)}% `;
      write(`\r${label} ${bar}${pct}${formatBytes(done)}${total ? ` of ${formatBytes(total)}` : ''}   `);
      return;
    }
    const tenth = frac === undefined ? Math.floor(done / 10e6) : Math.floor(frac * 10);
    if (tenth === shown) return;
    shown = tenth;
    write(
      `${label}: ${frac === undefined ? '' : `${(frac * 100).toFixed(0)}% (`}${formatBytes(done)}${total ? ` of ${formatBytes(total)})` : ''}\n`,
    );
  };
  return {
    start(l, t, from) {
      label = l;
      total = t;
      done = from;
      shown = -1;
      draw();
    },
    advance(n) {
      done += n;
      draw();
    },
    end() {
      if (tty) write('\n');
    },
  };
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

function sizeFits(d: CatalogueDownload, size: number): boolean {
  return d.approximate ? size * APPROXIMATE_FACTOR >= d.bytes && size <= d.bytes * APPROXIMATE_FACTOR : size === d.bytes;
}

function expected(d: CatalogueDownload): string {
  return d.approximate ? `about ${formatBytes(d.bytes)}` : `${d.bytes} bytes`;
}

/** A GET that follows redirects (release servers answer with one to their storage). */
function get(url: string, headers: Record<string, string>, redirects = 5): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const client = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : undefined;
    if (!client) {
      reject(new Error(`${u.protocol} is not http or https`));
      return;
    }
    const req = client.get(u, { headers }, (res) => {
      const to = res.headers.location;
      if (to && [301, 302, 303, 307, 308].includes(res.statusCode ?? 0)) {
        res.resume();
        if (redirects <= 0) reject(new Error('too many redirects'));
        else get(new URL(to, u).href, headers, redirects - 1).then(resolve, reject);
        return;
      }
      resolve(res);
    });
    req.on('error', reject);
  });
}

export interface Downloaded {
  url: string;
  bytes: number;
  sha256: string;
}

/** Fetches `url` into `part`, resuming what an earlier run left there; checks size and digest. */
export async function download(url: string, part: string, d: CatalogueDownload, progress: Progress): Promise<Downloaded> {
  let have = existsSync(part) ? statSync(part).size : 0;
  if (!d.approximate && have > d.bytes) {
    rmSync(part, { force: true });
    have = 0;
  }
  const name = url.split('/').pop()!;
  const complete = !d.approximate && have === d.bytes;
  if (!complete) {
    let res: IncomingMessage;
    try {
      res = await get(url, have ? { range: `bytes=${have}-` } : {});
    } catch (e) {
      throw new InstallError(`${url} could not be reached (${(e as Error).message})`, 'unreachable', { url });
    }
    if (res.statusCode === 416 && have) {
      // Nothing left to send: what we have is all there is; the checks below decide.
      res.resume();
    } else {
      if (res.statusCode !== 200 && res.statusCode !== 206) {
        res.resume();
        throw new InstallError(`${url} answered HTTP ${res.statusCode}`, 'http_status', { url, status: res.statusCode ?? 0 });
      }
      const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers['content-range'] ?? '');
      const resumed = res.statusCode === 206 && range !== null && Number(range[1]) === have;
      if (!resumed) have = 0;
      const length = Number(res.headers['content-length'] ?? NaN);
      const total = Number.isFinite(length) ? have + length : undefined;
      if (total !== undefined && !sizeFits(d, total)) {
        res.destroy();
        rmSync(part, { force: true });
        throw new InstallError(
          `${name} is ${total} bytes on the server, the catalogue expects ${expected(d)}: refused`,
          'size_mismatch',
          { name },
        );
      }
      progress.start(resumed ? `${name} (resumed)` : name, total, have);
      // Each piece is written (synchronously) as it arrives: an interruption keeps everything that came.
      const fd = openSync(part, resumed ? 'a' : 'w');
      try {
        await new Promise<void>((resolve, reject) => {
          res.on('data', (chunk: Buffer) => {
            writeSync(fd, chunk);
            progress.advance(chunk.length);
          });
          res.on('end', () => (res.complete ? resolve() : reject(new Error('the connection closed early'))));
          res.on('aborted', () => reject(new Error('the connection closed early')));
          res.on('error', reject);
        });
      } catch (e) {
        progress.end();
        const got = statSync(part).size;
        throw new InstallError(
          `${name}: the download was interrupted after ${formatBytes(got)} (${(e as Error).message}); run the same command again to resume`,
          'interrupted',
          { name },
        );
      } finally {
        closeSync(fd);
      }
      progress.end();
      const got = statSync(part).size;
      if (total !== undefined && got < total)
        throw new InstallError(
          `${name}: the download was interrupted after ${formatBytes(got)} of ${formatBytes(total)}; run the same command again to resume`,
          'interrupted',
          { name },
        );
    }
  }
  const size = statSync(part).size;
  if (!sizeFits(d, size)) {
    rmSync(part, { force: true });
    throw new InstallError(
      `${name} is ${size} bytes, the catalogue expects ${expected(d)}: refused and deleted`,
      'size_mismatch',
      {
        name,
      },
    );
  }
  const sha256 = await sha256File(part);
  if (d.sha256 && sha256 !== d.sha256) {
    rmSync(part, { force: true });
    throw new InstallError(
      `${name} has SHA-256 ${sha256}, the catalogue expects ${d.sha256}: refused and deleted`,
      'checksum_mismatch',
      {
        name,
      },
    );
  }
  return { url, bytes: size, sha256 };
}
