import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { ReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localStorage, type Storage } from '../../src/platform/storage.js';
import { s3Storage } from '../../src/platform/s3-storage.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { eventually } from '../support/leave.js';

const MB = 1024 * 1024;

/** `count` deterministic 1 MB blocks, made one at a time as the reader asks. */
function blocks(count: number, made = { n: 0 }): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < count; i++) {
        made.n += 1;
        yield Buffer.alloc(MB, i % 251);
      }
    })(),
  );
}
const blocksHash = (count: number) => {
  const h = createHash('sha256');
  for (let i = 0; i < count; i++) h.update(Buffer.alloc(MB, i % 251));
  return h.digest('hex');
};
const readAll = async (body: Readable) => {
  const parts: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) parts.push(chunk);
  return Buffer.concat(parts);
};

interface Subject {
  storage: Storage;
  /** How far the storage has read a stream it serves, for the download test. */
  progress(body: Readable): number;
  /** Whatever the backing store holds, by its own names (files, or object keys with the prefix). */
  stored(): Promise<string[]>;
  close(): Promise<void>;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else out.push(full);
  }
  return out;
}

const SUBJECTS: Record<string, () => Promise<Subject & { s3?: TestS3 }>> = {
  local: async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-storage-'));
    return {
      storage: localStorage(path.join(root, 'files')),
      progress: (body) => (body as ReadStream).bytesRead,
      stored: async () => (await walk(path.join(root, 'files'))).map((f) => path.relative(path.join(root, 'files'), f)),
      close: () => fs.rm(root, { recursive: true, force: true }),
    };
  },
  s3: async () => {
    const s3 = await startS3Server();
    // Under a key prefix, as a bucket shared by several deployments would be.
    const storage = s3Storage(`${s3.url}/tenant-a?region=us-east-1`);
    return {
      s3,
      storage,
      progress: () => s3.bytesSent(),
      stored: () => s3.keys(),
      close: async () => {
        await storage.close();
        await s3.close();
      },
    };
  },
};

describe.each(Object.keys(SUBJECTS))('storage contract (%s)', (kind) => {
  let subject: Subject & { s3?: TestS3 };
  let storage: Storage;
  beforeAll(async () => {
    subject = await SUBJECTS[kind]!();
    storage = subject.storage;
  });
  afterAll(async () => {
    await subject.close();
  });

  it('keeps, reads, overwrites, states and deletes a file', async () => {
    await storage.check();
    await storage.put('notes/a', Buffer.from('first'), { contentType: 'text/plain' });
    await storage.put('notes/a', Buffer.from('second version'), { contentType: 'text/plain' });
    expect((await storage.get('notes/a'))?.toString()).toBe('second version');
    expect(await storage.stat('notes/a')).toMatchObject({ size: 14 });
    expect(await storage.exists('notes/a')).toBe(true);
    const whole = (await storage.getStream('notes/a'))!;
    expect(whole.size).toBe(14);
    expect(whole.range).toBeUndefined();
    expect((await readAll(whole.body)).toString()).toBe('second version');
    if (kind === 's3') {
      expect(whole.contentType).toBe('text/plain');
      expect(await subject.stored()).toContain('tenant-a/notes/a');
    }
    await storage.delete('notes/a');
    expect(await storage.get('notes/a')).toBeNull();
    expect(await storage.exists('notes/a')).toBe(false);
  });

  it('answers null, false or nothing for missing keys, and deleting one is no error', async () => {
    expect(await storage.get('missing/x')).toBeNull();
    expect(await storage.getStream('missing/x')).toBeNull();
    expect(await storage.getStream('missing/x', { start: 0, end: 3 })).toBeNull();
    expect(await storage.getStream('missing/x', { suffix: 3 })).toBeNull();
    expect(await storage.stat('missing/x')).toBeNull();
    expect(await storage.exists('missing/x')).toBe(false);
    await expect(storage.delete('missing/x')).resolves.toBeUndefined();
    expect(await storage.list('missing')).toEqual([]);
    // A folder is not a file.
    await storage.put('dir/inner/file', Buffer.from('x'));
    expect(await storage.get('dir/inner')).toBeNull();
    expect(await storage.stat('dir/inner')).toBeNull();
  });

  it('lists the files directly inside a folder', async () => {
    await storage.put('lst/a', Buffer.from('1'));
    await storage.put('lst/b.mp3', Buffer.from('2'));
    await storage.put('lst/sub/c', Buffer.from('3'));
    await storage.put('lst2/d', Buffer.from('4'));
    expect((await storage.list('lst')).sort()).toEqual(['lst/a', 'lst/b.mp3']);
    expect(await storage.list('lst/sub')).toEqual(['lst/sub/c']);
  });

  it('serves byte ranges, and the whole file for a range it cannot satisfy', async () => {
    await storage.put('ranges/f', Buffer.from('0123456789'));
    const read = async (range: Parameters<Storage['getStream']>[1]) => {
      const s = (await storage.getStream('ranges/f', range))!;
      return { size: s.size, range: s.range, text: (await readAll(s.body)).toString() };
    };
    expect(await read({ start: 2, end: 4 })).toEqual({ size: 10, range: { start: 2, end: 4 }, text: '234' });
    expect(await read({ start: 7 })).toEqual({ size: 10, range: { start: 7, end: 9 }, text: '789' });
    expect(await read({ start: 8, end: 100 })).toEqual({ size: 10, range: { start: 8, end: 9 }, text: '89' });
    expect(await read({ suffix: 3 })).toEqual({ size: 10, range: { start: 7, end: 9 }, text: '789' });
    expect(await read({ suffix: 50 })).toEqual({ size: 10, range: { start: 0, end: 9 }, text: '0123456789' });
    expect(await read({ start: 10 })).toEqual({ size: 10, range: undefined, text: '0123456789' });
    await storage.put('ranges/empty', Buffer.alloc(0));
    const empty = (await storage.getStream('ranges/empty', { start: 0 }))!;
    expect(empty.size).toBe(0);
    expect(empty.range).toBeUndefined();
    expect((await readAll(empty.body)).length).toBe(0);
  });

  it('refuses unsafe keys in every call', async () => {
    const unsafe = ['../escape', 'a/../../etc/passwd', '/abs', '.hidden', 'a//b', 'a b', 'a\\b', '', 'a/', 'x/..', 'ü'];
    for (const key of unsafe) {
      await expect(storage.put(key, Buffer.from('x')), key).rejects.toThrow(/unsafe storage key/);
      await expect(storage.get(key), key).rejects.toThrow(/unsafe storage key/);
      await expect(storage.putStream(key, Readable.from([Buffer.from('x')])), key).rejects.toThrow(/unsafe storage key/);
      await expect(storage.getStream(key), key).rejects.toThrow(/unsafe storage key/);
      await expect(storage.stat(key), key).rejects.toThrow(/unsafe storage key/);
      await expect(storage.exists(key), key).rejects.toThrow(/unsafe storage key/);
      await expect(storage.delete(key), key).rejects.toThrow(/unsafe storage key/);
      await expect(storage.list(key), key).rejects.toThrow(/unsafe storage key/);
    }
    expect((await subject.stored()).some((k) => k.includes('escape') || k.includes('passwd'))).toBe(false);
  });

  it('keeps nothing of a stream that fails midway, small or already in parts', async () => {
    for (const megabytes of [2, 12]) {
      const before = subject.s3?.requests.length ?? 0;
      const failing = Readable.from(
        (async function* () {
          for (let i = 0; i < megabytes; i++) yield Buffer.alloc(MB, i);
          throw new Error('the source broke');
        })(),
      );
      await expect(storage.putStream(`broken/f${megabytes}`, failing)).rejects.toThrow(/the source broke/);
      expect(await storage.exists(`broken/f${megabytes}`)).toBe(false);
      if (subject.s3 && megabytes > 5) {
        // The parts already sent were thrown away with their upload.
        const seen = subject.s3.requests.slice(before);
        expect(seen.some((r) => r.method === 'PUT' && /[?&]partNumber=/.test(r.url))).toBe(true);
        expect(seen.some((r) => r.method === 'DELETE' && /[?&]uploadId=/.test(r.url))).toBe(true);
      }
    }
    expect(await storage.list('broken')).toEqual([]);
    expect((await subject.stored()).filter((k) => k.includes('broken'))).toEqual([]);
  });

  it('takes a 25 MB stream without holding it, and serves it back as a stream', async () => {
    const made = { n: 0 };
    const before = subject.s3?.requests.length ?? 0;
    const { size } = await storage.putStream('big/sample.wav', blocks(25, made), { contentType: 'audio/wav' });
    expect(size).toBe(25 * MB);
    expect(made.n).toBe(25);
    expect(await storage.stat('big/sample.wav')).toMatchObject({ size: 25 * MB });
    if (subject.s3) {
      // Multipart: the 25 MB went up as 5 MB parts, never as one body.
      const parts = subject.s3.requests.slice(before).filter((r) => r.method === 'PUT' && /[?&]partNumber=\d+/.test(r.url));
      expect(parts.length).toBe(5);
      expect(subject.s3.requests.slice(before).some((r) => r.method === 'POST' && /[?&]uploads/.test(r.url))).toBe(true);
    }

    const start = subject.progress(Readable.from([]));
    const file = (await storage.getStream('big/sample.wav'))!;
    expect(file.size).toBe(25 * MB);
    const iterator = (file.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    // The reader stops: the storage stops too, far short of the whole file (backpressure, no buffering).
    let last = -1;
    await eventually(
      async () => {
        const now = subject.progress(file.body) - (subject.s3 ? start : 0);
        const still = now === last;
        last = now;
        return still;
      },
      100,
      100,
    );
    expect(last).toBeGreaterThan(0);
    expect(last).toBeLessThan(12 * MB);
    const hash = createHash('sha256').update(first.value as Buffer);
    let total = (first.value as Buffer).length;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      hash.update(next.value);
      total += next.value.length;
    }
    expect(total).toBe(25 * MB);
    expect(hash.digest('hex')).toBe(blocksHash(25));
    await storage.delete('big/sample.wav');
  });
});

describe('storage check', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3.close();
  });

  it('fails clearly for a folder that cannot be written', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-storage-'));
    try {
      await fs.writeFile(path.join(root, 'files'), 'a file where the folder should be');
      await expect(localStorage(path.join(root, 'files')).check()).rejects.toThrow(/storage folder .*files is not writable/);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it('fails clearly for wrong keys, a missing bucket and an unreachable server, naming neither key nor secret', async () => {
    const port = new URL(s3.endpoint).port;
    const cases: [string, RegExp][] = [
      [`s3+http://WRONGKEY:topsecret@127.0.0.1:${port}/${s3.bucket}`, /refused the access key and secret of S3_URL \(403\)/],
      [`s3+http://S3RVER:S3RVER@127.0.0.1:${port}/no-such-bucket`, /bucket "no-such-bucket", has no such bucket \(404\)/],
      [`s3+http://S3RVER:S3RVER@127.0.0.1:1/${s3.bucket}`, /cannot be reached/],
    ];
    for (const [url, message] of cases) {
      const storage = s3Storage(url);
      try {
        const error = await storage.check().then(
          () => null,
          (e: Error) => e,
        );
        expect(error?.message, url).toMatch(message);
        expect(error?.message).toMatch(/^S3 storage: http:\/\/127\.0\.0\.1:\d+, bucket /);
        expect(error?.message).not.toMatch(/topsecret|WRONGKEY/);
      } finally {
        await storage.close();
      }
    }
    const good = s3Storage(s3.url);
    await expect(good.check()).resolves.toBeUndefined();
    await good.close();
  });
});
