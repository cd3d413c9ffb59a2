/**
 * Model releases as the tests serve them: tiny models written in each real layout (sherpa-onnx's
 * release archives, with the vocoder apart for Matcha and ZipVoice; Piper's NAME.onnx with its JSON),
 * packed as .tar.bz2 (tar-stream, and compressjs's bzip2 encoder), and an HTTP server (node:http)
 * that honours Range requests and can break a response off part-way, as a dropped connection does.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import tar from 'tar-stream';
import { writeTinyLayouts, type TinyLayout } from '../../../../packages/speech/test/support/tiny-layouts.js';

const bzip2 = (createRequire(import.meta.url)('compressjs') as { Bzip2: { compressFile(b: Buffer): Uint8Array } }).Bzip2;

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

export interface TarEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link';
  body?: Buffer | string;
  linkname?: string;
}

/** A .tar.bz2 of the given entries, in order. */
export async function tarBz2(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const e of entries) {
    const type = e.type ?? 'file';
    if (type === 'file') pack.entry({ name: e.name, mode: 0o644 }, Buffer.from(e.body ?? ''));
    else pack.entry({ name: e.name, type, mode: type === 'directory' ? 0o755 : 0o644, linkname: e.linkname });
  }
  pack.finalize();
  await ended;
  return Buffer.from(bzip2.compressFile(Buffer.concat(chunks)));
}

/** The entries of a folder, under `top/` as sherpa-onnx's archives hold them (symlinks followed). */
export function folderEntries(dir: string, top: string, rel = ''): TarEntry[] {
  const out: TarEntry[] = rel ? [] : [{ name: `${top}/`, type: 'directory' }];
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push({ name: `${top}/${r}/`, type: 'directory' }, ...folderEntries(dir, top, r));
    else out.push({ name: `${top}/${r}`, body: readFileSync(path.join(dir, r)) });
  }
  return out;
}

/** A release: the archive (or the loose files) and what goes beside it. */
export interface Release {
  name: string;
  family: string;
  /** Files served, by path under the server's root. */
  files: Map<string, Buffer>;
  /** The catalogue's downloads for it (bytes exact, no digest). */
  downloads: { base: string; path: string; bytes: number; file?: string }[];
  /** The model type discovery finds once it is installed. */
  type: string;
}

function archiveRelease(layout: TinyLayout, archive: Buffer): Release {
  const files = new Map([[`tts-models/${layout.name}.tar.bz2`, archive]]);
  const downloads: Release['downloads'] = [
    { base: 'sherpa-onnx', path: `tts-models/${layout.name}.tar.bz2`, bytes: archive.length },
  ];
  if (layout.vocoder) {
    const file = path.basename(layout.vocoder);
    const body = readFileSync(layout.vocoder);
    files.set(`vocoder-models/${file}`, body);
    downloads.push({ base: 'sherpa-onnx', path: `vocoder-models/${file}`, bytes: body.length, file });
  }
  return { name: layout.name, family: layout.family, files, downloads, type: layout.type };
}

/** One release in each layout the catalogue installs, built under `work`. */
export async function buildReleases(work: string): Promise<Release[]> {
  const out: Release[] = [];
  for (const layout of writeTinyLayouts(work, { vocodersApart: true, espeakStubs: true })) {
    if (layout.family !== 'piper') {
      out.push(archiveRelease(layout, await tarBz2(folderEntries(layout.dir, layout.name))));
      continue;
    }
    // A Piper voice as rhasspy/piper-voices lays it out: lang/lang_REGION/name/quality/NAME.onnx(.json).
    const piper: Release = { name: layout.name, family: 'piper', files: new Map(), downloads: [], type: layout.type };
    for (const f of ['en_GB-solo-low.onnx', 'en_GB-solo-low.onnx.json']) {
      const body = readFileSync(path.join(layout.dir, f));
      piper.files.set(`en/en_GB/solo/low/${f}`, body);
      piper.downloads.push({ base: 'piper', path: `en/en_GB/solo/low/${f}`, bytes: body.length, file: f });
    }
    out.push(piper);
  }
  return out;
}

export interface ReleaseServer {
  url: string;
  /** Path → bytes served; tests change it. */
  files: Map<string, Buffer>;
  /** Path → how many bytes of the body to send before dropping the connection (once). */
  cutAfter: Map<string, number>;
  /** The Range header of each request, by path. */
  ranges: Map<string, (string | undefined)[]>;
  close(): Promise<void>;
}

/** Serves `files` under its root; `/piper/…` too, as the Piper base. */
export async function serveReleases(files: Map<string, Buffer> = new Map()): Promise<ReleaseServer> {
  const cutAfter = new Map<string, number>();
  const ranges = new Map<string, (string | undefined)[]>();
  const server: Server = createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
    ranges.set(key, [...(ranges.get(key) ?? []), req.headers.range]);
    const body = files.get(key) ?? files.get(key.replace(/^piper\//, ''));
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    if (from >= body.length && m) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const slice = body.subarray(from);
    res.writeHead(m ? 206 : 200, {
      'content-length': slice.length,
      'accept-ranges': 'bytes',
      ...(m ? { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` } : {}),
    });
    const cut = cutAfter.get(key);
    if (cut !== undefined) {
      cutAfter.delete(key);
      // Ended, not reset: the bytes sent arrive, then the connection closes short of its length.
      res.write(slice.subarray(0, cut), () => res.socket?.end());
      return;
    }
    res.end(slice);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    files,
    cutAfter,
    ranges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
