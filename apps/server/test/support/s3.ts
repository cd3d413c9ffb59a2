import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

/** s3rver's one account: it checks the access key id (an unknown one is refused with 403). */
export const S3_KEY = 'S3RVER';
export const S3_SECRET = 'S3RVER';

export interface TestS3 {
  /** `s3+http://key:secret@127.0.0.1:port/bucket`, ready for S3_URL (append a prefix path if wanted). */
  url: string;
  endpoint: string;
  bucket: string;
  /** Every request the server received, in order: method and path with query. */
  requests: { method: string; url: string }[];
  /** Bytes of response bodies the server has written so far. */
  bytesSent(): number;
  /** Every object key in the bucket. */
  keys(): Promise<string[]>;
  object(key: string): Promise<Buffer>;
  /** Stops the server (once, however often called) and removes its folder. */
  close(): Promise<void>;
}

/**
 * A real S3 protocol server (s3rver) on a random loopback port with its own temp folder, with a bucket
 * created through the S3 API as any operator would.
 */
export async function startS3Server(bucket = `polyvox-${Math.random().toString(36).slice(2, 10)}`): Promise<TestS3> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
  const address = await server.run();
  const requests: TestS3['requests'] = [];
  let sent = 0;
  server.httpServer!.prependListener('request', (req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' });
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) sent += Buffer.byteLength(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
  });
  const endpoint = `http://127.0.0.1:${address.port}`;
  let closed: Promise<void> | null = null;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_SECRET },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    url: `s3+http://${S3_KEY}:${S3_SECRET}@127.0.0.1:${address.port}/${bucket}`,
    endpoint,
    bucket,
    requests,
    bytesSent: () => sent,
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const out = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }),
        );
        for (const item of out.Contents ?? []) if (item.Key) keys.push(item.Key);
        token = out.IsTruncated ? out.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async object(key) {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await out.Body!.transformToByteArray());
    },
    close() {
      closed ??= (async () => {
        client.destroy();
        await server.close();
        await fs.rm(dir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}
