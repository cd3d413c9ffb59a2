import { assertSafeKey } from './storage.js';

/** Where `S3_URL` points: endpoint, bucket, key prefix, region and (unless the SDK's own chain supplies them) keys. */
export interface S3Location {
  endpoint: string;
  bucket: string;
  /** Prepended to every key, with its slash (`tenant-a/`), or empty. */
  prefix: string;
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

const SCHEMES = new Map([
  ['s3:', 'https'],
  ['s3+https:', 'https'],
  ['s3+http:', 'http'],
]);
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const QUERY = new Set(['region']);

export class S3UrlError extends Error {}

/**
 * `s3://KEY:SECRET@host:port/bucket/optional/prefix?region=us-east-1`: path-style requests over https;
 * `s3+http://…` speaks plain http (a bucket server on loopback or a private network). Key and secret are
 * percent-encoded when they hold `/`, `+`, `@` or `:`; without them the AWS SDK's own chain is asked
 * (AWS_ACCESS_KEY_ID…, an instance role).
 */
export function parseS3Url(raw: string): S3Location {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new S3UrlError('must be a URL such as s3://key:secret@host:port/bucket?region=us-east-1');
  }
  const protocol = SCHEMES.get(url.protocol);
  if (!protocol) throw new S3UrlError('must start with s3://, s3+https:// or s3+http://');
  if (!url.hostname) throw new S3UrlError('must name the host of the bucket server');
  const [bucket = '', ...rest] = url.pathname.split('/').filter(Boolean);
  if (!BUCKET.test(bucket)) throw new S3UrlError('must name a bucket (3 to 63 of a-z, 0-9, dot and hyphen) as its path');
  const prefix = rest.join('/');
  if (prefix) {
    try {
      assertSafeKey(prefix);
    } catch {
      throw new S3UrlError('the key prefix after the bucket may hold only A-Z, a-z, 0-9, _, -, . and /');
    }
  }
  for (const name of url.searchParams.keys()) {
    if (!QUERY.has(name)) throw new S3UrlError(`unknown parameter ${JSON.stringify(name)} (only region)`);
  }
  const region = url.searchParams.get('region') || 'us-east-1';
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  if (Boolean(user) !== Boolean(password)) throw new S3UrlError('must give both the access key and the secret, or neither');
  return {
    endpoint: `${protocol}://${url.host}`,
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    region,
    ...(user ? { credentials: { accessKeyId: user, secretAccessKey: password } } : {}),
  };
}
