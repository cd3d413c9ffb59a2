import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { parseS3Url } from '../../src/platform/s3-url.js';
import { loadConfig } from '../../src/platform/config.js';
import { resolveRange } from '../../src/platform/storage.js';
import { requestedRange } from '../../src/http/stored-reply.js';

describe('S3_URL', () => {
  it('reads endpoint, bucket, prefix, region and keys', () => {
    expect(parseS3Url('s3://AKIA1:se%2Fcr%2Bet@s3.example.com/audio?region=eu-west-3')).toEqual({
      endpoint: 'https://s3.example.com',
      bucket: 'audio',
      prefix: '',
      region: 'eu-west-3',
      credentials: { accessKeyId: 'AKIA1', secretAccessKey: 'se/cr+et' },
    });
    expect(parseS3Url('s3+http://k:s@127.0.0.1:9000/polyvox-files/prod/eu/')).toMatchObject({
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'polyvox-files',
      prefix: 'prod/eu/',
      region: 'us-east-1',
    });
    expect(parseS3Url('s3+https://minio.internal:9000/b-1')).toEqual({
      endpoint: 'https://minio.internal:9000',
      bucket: 'b-1',
      prefix: '',
      region: 'us-east-1',
    });
  });

  it.each([
    ['http://k:s@host/bucket', /must start with s3:\/\//],
    ['s3://k:s@host', /must name a bucket/],
    ['s3://k:s@host/B', /must name a bucket/],
    ['s3://k:s@host/bucket/a..b', /key prefix/],
    ['s3://k:s@host/bucket/.hidden', /key prefix/],
    ['s3://k:s@host/bucket/a b', /key prefix/],
    ['s3://k@host/bucket', /both the access key and the secret/],
    ['s3://k:s@host/bucket?tls=false', /unknown parameter "tls"/],
    ['s3:///bucket', /host|bucket/],
    ['nonsense', /must be a URL/],
  ])('refuses %s', (url, message) => {
    expect(() => parseS3Url(url)).toThrow(message);
  });

  it('is checked at start, naming the setting and masking the secret', () => {
    expect(loadConfig({ S3_URL: 's3+http://k:s@127.0.0.1:9000/bucket' }).S3_URL).toBe('s3+http://k:s@127.0.0.1:9000/bucket');
    let message = '';
    try {
      loadConfig({ S3_URL: 's3+http://key:hunter2@127.0.0.1:9000/X' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/S3_URL=.*must name a bucket/);
    expect(message).not.toContain('hunter2');
  });
});

describe('byte ranges', () => {
  const range = (header?: string) => requestedRange({ headers: header === undefined ? {} : { range: header } } as FastifyRequest);

  it('reads one range of bytes, and ignores what it cannot read', () => {
    expect(range('bytes=0-')).toEqual({ start: 0 });
    expect(range('bytes=5-9')).toEqual({ start: 5, end: 9 });
    expect(range('bytes=-500')).toEqual({ suffix: 500 });
    for (const ignored of [
      undefined,
      '',
      'bytes=9-5',
      'bytes=-',
      'bytes=0-1,4-5',
      'items=0-1',
      'bytes=a-b',
      'bytes=1234567890123456-',
    ]) {
      expect(range(ignored), String(ignored)).toBeUndefined();
    }
  });

  it('resolves ranges against a size', () => {
    expect(resolveRange({ start: 0 }, 10)).toEqual({ start: 0, end: 9 });
    expect(resolveRange({ start: 3, end: 99 }, 10)).toEqual({ start: 3, end: 9 });
    expect(resolveRange({ suffix: 4 }, 10)).toEqual({ start: 6, end: 9 });
    expect(resolveRange({ suffix: 0 }, 10)).toBeNull();
    expect(resolveRange({ start: 10 }, 10)).toBeNull();
    expect(resolveRange({ start: 0 }, 0)).toBeNull();
  });
});
