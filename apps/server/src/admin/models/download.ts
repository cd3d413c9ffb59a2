/**
 * A download that resumes: bytes go to NAME.part, and a later run asks the server for the rest (an HTTP
 * Range request) instead of starting again. What arrives is checked against the catalogue's size and,
 * where it has one, its SHA-256; a download that fails a check is deleted, so the next run starts clean.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { APPROXIMATE_SLACK, formatBytes, type CatalogueDownload } from './catalogue.js';

/** A refusal with a message for the operator; nothing of it is installed. */
export class InstallError extends Error {}

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
  return d.approximate ? Math.abs(size - d.bytes) <= d.bytes * APPROXIMATE_SLACK : size === d.bytes;
}

function expected(d: CatalogueDownload): string {
  return d.approximate ? `about ${formatBytes(d.bytes)}` : `${d.bytes} bytes`;
}

export interface Downloaded {
  url: string;
  bytes: number;
  sha256: string;
}

/** Fetches `url` into `part`, resuming what an earlier run left there; checks size and digest. */
export async function download(
  url: string,
  part: string,
  d: CatalogueDownload,
  progress: Progress,
  fetchImpl: typeof fetch = fetch,
): Promise<Downloaded> {
  let have = existsSync(part) ? statSync(part).size : 0;
  if (!d.approximate && have > d.bytes) {
    rmSync(part, { force: true });
    have = 0;
  }
  const name = url.split('/').pop()!;
  const complete = !d.approximate && have === d.bytes;
  if (!complete) {
    let res: Response;
    try {
      res = await fetchImpl(url, { headers: have ? { range: `bytes=${have}-` } : {}, redirect: 'follow' });
    } catch (e) {
      throw new InstallError(`${url} could not be reached (${(e as Error).cause ? String((e as Error).cause) : (e as Error).message})`);
    }
    if (res.status === 416 && have) {
      // Nothing left to send: what we have is all there is; the checks below decide.
      await res.body?.cancel();
    } else {
      if (res.status !== 200 && res.status !== 206) {
        await res.body?.cancel();
        throw new InstallError(`${url} answered HTTP ${res.status}`);
      }
      const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
      const resumed = res.status === 206 && range !== null && Number(range[1]) === have;
      if (!resumed) have = 0;
      const length = Number(res.headers.get('content-length') ?? NaN);
      const total = Number.isFinite(length) ? have + length : undefined;
      if (total !== undefined && !sizeFits(d, total)) {
        await res.body?.cancel();
        rmSync(part, { force: true });
        throw new InstallError(`${name} is ${total} bytes on the server, the catalogue expects ${expected(d)}: refused`);
      }
      if (!res.body) throw new InstallError(`${url} sent no body`);
      progress.start(resumed ? `${name} (resumed)` : name, total, have);
      const counter = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          progress.advance(chunk.length);
          cb(null, chunk);
        },
      });
      try {
        await pipeline(
          Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>),
          counter,
          createWriteStream(part, { flags: resumed ? 'a' : 'w' }),
        );
      } catch (e) {
        progress.end();
        const got = existsSync(part) ? statSync(part).size : 0;
        throw new InstallError(
          `${name}: the download was interrupted after ${formatBytes(got)} (${(e as Error).message}); run the same command again to resume`,
        );
      }
      progress.end();
      const got = statSync(part).size;
      if (total !== undefined && got < total)
        throw new InstallError(
          `${name}: the download was interrupted after ${formatBytes(got)} of ${formatBytes(total)}; run the same command again to resume`,
        );
    }
  }
  const size = statSync(part).size;
  if (!sizeFits(d, size)) {
    rmSync(part, { force: true });
    throw new InstallError(`${name} is ${size} bytes, the catalogue expects ${expected(d)}: refused and deleted`);
  }
  const sha256 = await sha256File(part);
  if (d.sha256 && sha256 !== d.sha256) {
    rmSync(part, { force: true });
    throw new InstallError(`${name} has SHA-256 ${sha256}, the catalogue expects ${d.sha256}: refused and deleted`);
  }
  return { url, bytes: size, sha256 };
}
