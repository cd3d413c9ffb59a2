import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertSafeKey, resolveRange, type Storage, type StoredStream } from './storage.js';
import { parseS3Url, type S3Location } from './s3-url.js';

/** The S3 minimum part, and the parts in flight per upload: what one upload holds does not grow with the file. */
export const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
const MAX_CONNECTIONS = 1024;

function status(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isNotFound(e: unknown): boolean {
  const name = (e as { name?: string }).name;
  return status(e) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/** `bytes 0-99/12345` → 12345. */
function totalOf(contentRange: string | undefined): number | null {
  const total = /\/(\d+)$/.exec(contentRange ?? '')?.[1];
  return total === undefined ? null : Number(total);
}

async function* counting(body: Readable, seen: { size: number; error?: unknown }): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body as AsyncIterable<Buffer | string>) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      seen.size += buffer.length;
      yield buffer;
    }
  } catch (e) {
    seen.error = e;
    throw e;
  }
}

/** A bucket of any S3-compatible server (AWS S3, MinIO, Ceph, R2 …) through `@aws-sdk/client-s3`. */
export function s3Storage(location: S3Location | string, options: { client?: S3Client } = {}): Storage {
  const where = typeof location === 'string' ? parseS3Url(location) : location;
  const client =
    options.client ??
    new S3Client({
      endpoint: where.endpoint,
      region: where.region,
      forcePathStyle: true,
      ...(where.credentials ? { credentials: where.credentials } : {}),
      // Checksums only where S3 requires them: many S3-compatible servers refuse the SDK's newer defaults
      // (aws-chunked uploads with trailing CRC32).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: {
        connectionTimeout: 5000,
        // An answer's headers within a minute; a body may pause while its client does (a player that has
        // buffered enough), but not beyond two idle minutes: the client then asks again with a Range.
        requestTimeout: 60_000,
        throwOnRequestTimeout: true,
        socketTimeout: 120_000,
        // Every download being served holds one connection to the bucket: room for many at once.
        httpAgent: { keepAlive: true, maxSockets: MAX_CONNECTIONS },
        httpsAgent: { keepAlive: true, maxSockets: MAX_CONNECTIONS },
      },
    });
  const Bucket = where.bucket;
  const name = (key: string) => {
    assertSafeKey(key);
    return `${where.prefix}${key}`;
  };

  async function getObject(key: string, range?: string): Promise<GetObjectCommandOutput | null> {
    try {
      return await client.send(new GetObjectCommand({ Bucket, Key: key, ...(range ? { Range: range } : {}) }));
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  function streamOf(out: GetObjectCommandOutput): Readable {
    const body = out.Body;
    if (!(body instanceof Readable)) throw new Error('the S3 client answered a body that is not a Node stream');
    return body;
  }

  const storage: Storage = {
    kind: 's3',
    async put(key, data, opts = {}) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: name(key),
          Body: data,
          ContentLength: data.length,
          ...(opts.contentType ? { ContentType: opts.contentType } : {}),
        }),
      );
    },
    async get(key) {
      const out = await getObject(name(key));
      if (!out?.Body) return null;
      return Buffer.from(await out.Body.transformToByteArray());
    },
    async putStream(key, body, opts = {}) {
      const seen: { size: number; error?: unknown } = { size: 0 };
      // One request for a file under a part; parts of 5 MB, two in flight, for anything larger.
      const upload = new Upload({
        client,
        params: {
          Bucket,
          Key: name(key),
          Body: Readable.from(counting(body, seen)),
          ...(opts.contentType ? { ContentType: opts.contentType } : {}),
        },
        partSize: PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (e) {
        body.destroy();
        // The source's own failure, rather than whatever cleaning up the parts then ran into.
        throw seen.error ?? e;
      }
      return { size: seen.size };
    },
    async getStream(key, range): Promise<StoredStream | null> {
      const Key = name(key);
      let span: { start: number; end?: number } | null = null;
      if (range && 'suffix' in range) {
        // A suffix needs the size first (and some S3-compatible servers get `bytes=-n` wrong).
        const info = await storage.stat(key);
        if (!info) return null;
        span = resolveRange(range, info.size);
      } else if (range) {
        span = range.start >= 0 && (range.end === undefined || range.end >= range.start) ? range : null;
      }
      let out: GetObjectCommandOutput | null;
      try {
        out = await getObject(Key, span ? `bytes=${span.start}-${span.end ?? ''}` : undefined);
      } catch (e) {
        // Past the end (or an empty file): the whole file, as for a local one.
        if (status(e) !== 416) throw e;
        span = null;
        out = await getObject(Key);
      }
      if (!out) return null;
      const body = streamOf(out);
      const length = out.ContentLength ?? 0;
      const total = span ? totalOf(out.ContentRange) : length;
      if (!span || total === null || out.ContentRange === undefined) {
        return { body, size: total ?? length, ...(out.ContentType ? { contentType: out.ContentType } : {}) };
      }
      const served = /bytes (\d+)-(\d+)\//.exec(out.ContentRange);
      const start = Number(served?.[1] ?? span.start);
      const end = Number(served?.[2] ?? start + length - 1);
      if (!(start <= end && end < total)) {
        // A range of nothing (an empty file; some servers answer it instead of 416): the whole file.
        body.destroy();
        return storage.getStream(key);
      }
      return {
        body,
        size: total,
        range: { start, end },
        ...(out.ContentType ? { contentType: out.ContentType } : {}),
      };
    },
    async stat(key) {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket, Key: name(key) }));
        return { size: out.ContentLength ?? 0, ...(out.ContentType ? { contentType: out.ContentType } : {}) };
      } catch (e) {
        if (isNotFound(e)) return null;
        throw e;
      }
    },
    async exists(key) {
      return (await storage.stat(key)) !== null;
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: name(key) }));
    },
    async list(folder) {
      const Prefix = `${name(folder)}/`;
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const out = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix, Delimiter: '/', ...(ContinuationToken ? { ContinuationToken } : {}) }),
        );
        for (const item of out.Contents ?? []) {
          if (item.Key && item.Key.length > Prefix.length) keys.push(item.Key.slice(where.prefix.length));
        }
        ContinuationToken = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return keys;
    },
    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (e) {
        const code = status(e);
        const why =
          code === 403
            ? 'refused the access key and secret of S3_URL (403)'
            : code === 404
              ? 'has no such bucket (404)'
              : code !== undefined
                ? `answered ${code}`
                : `cannot be reached (${(e as Error).name}: ${(e as Error).message})`;
        throw new Error(`S3 storage: ${where.endpoint}, bucket ${JSON.stringify(Bucket)}, ${why}`, { cause: e });
      }
    },
    async close() {
      if (!options.client) client.destroy();
    },
  };
  return storage;
}
