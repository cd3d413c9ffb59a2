/**
 * Local servers that speak each SMS provider's protocol and check its request signature the way the provider does:
 * Alibaba Cloud's ACS3-HMAC-SHA256 (what its SDK sends by default) or its older RPC signature (HMAC-SHA1, version
 * 1.0, what the SDK sends with `signatureAlgorithm: 'v2'`), Tencent Cloud's TC3-HMAC-SHA256, Twilio's basic auth with a form body. A request
 * whose signature does not match is refused as the provider refuses it, and noted in `refused`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentSms {
  to: string;
  code?: string;
  text?: string;
}

export interface FakeSms {
  /** `host:port`, the endpoint to give the SDK. */
  host: string;
  sent: SentSms[];
  refused: string[];
  /** Set: the next message is refused by the provider with this code (a signed request, a failed send). */
  failNext?: string;
  close(): Promise<void>;
}

async function listen(handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** RFC 3986 encoding as Alibaba Cloud's canonical query string has it. */
function acsEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Alibaba Cloud's RPC signature, version 1.0 (written from its documentation): the parameters but `Signature`
 * sorted by name and RFC 3986-encoded, `METHOD&%2F&<encoded query>` signed HMAC-SHA1 with `<secret>&`, base64.
 */
export function acsRpcSignature(method: string, params: Record<string, string>, secret: string): string {
  const canonical = Object.keys(params)
    .filter((k) => k !== 'Signature')
    .sort()
    .map((k) => `${acsEncode(k)}=${acsEncode(params[k]!)}`)
    .join('&');
  return createHmac('sha1', `${secret}&`)
    .update(`${method}&${acsEncode('/')}&${acsEncode(canonical)}`)
    .digest('base64');
}

/**
 * Checks an RPC-signed request (its parameters: query and form body together) as Alibaba Cloud does: the key, the
 * method and version of the signature, a timestamp within 15 minutes, a nonce never seen, then the signature.
 * Answers why it is refused, or null.
 */
export function acsRpcRefusal(
  method: string,
  params: Record<string, string>,
  accessKeyId: string,
  secret: string,
  nonces: Set<string>,
): string | null {
  if (params.AccessKeyId !== accessKeyId) return 'unknown AccessKeyId';
  if (params.SignatureMethod !== 'HMAC-SHA1' || params.SignatureVersion !== '1.0') return 'not HMAC-SHA1 1.0';
  if (!(Math.abs(Date.now() - Date.parse(params.Timestamp ?? '')) < 15 * 60_000)) return 'Timestamp too far';
  if (!params.SignatureNonce || nonces.has(params.SignatureNonce)) return 'SignatureNonce used';
  if (!same(acsRpcSignature(method, params, secret), params.Signature ?? '')) return 'signature differs';
  nonces.add(params.SignatureNonce);
  return null;
}

/**
 * Alibaba Cloud SMS (`SendSms`, RPC style, version 2017-05-25), signed ACS3-HMAC-SHA256 (an `Authorization`
 * header) or with the RPC signature (a `Signature` parameter); a request with neither is refused.
 */
export async function fakeAlibabaSms(accessKeyId: string, accessKeySecret: string): Promise<FakeSms> {
  const sent: SentSms[] = [];
  const refused: string[] = [];
  const nonces = new Set<string>();
  const server = await listen((req, body, res) => {
    const refuse = (why: string) => {
      refused.push(why);
      json(res, 400, { Code: 'SignatureDoesNotMatch', Message: why, RequestId: 'fake' });
    };
    const url = new URL(req.url ?? '/', 'http://fake');
    const accept = () => {
      const params = new URLSearchParams(body);
      const get = (k: string) => url.searchParams.get(k) ?? params.get(k) ?? '';
      if (get('Action') && (get('Action') !== 'SendSms' || get('Version') !== '2017-05-25'))
        return refuse('not SendSms 2017-05-25');
      const template = JSON.parse(get('TemplateParam') || '{}') as { code?: string };
      sent.push({ to: get('PhoneNumbers'), code: template.code });
      json(res, 200, { Code: 'OK', Message: 'OK', BizId: `biz${sent.length}`, RequestId: `req${sent.length}` });
    };
    if (url.searchParams.has('Signature')) {
      const params = { ...Object.fromEntries(url.searchParams), ...Object.fromEntries(new URLSearchParams(body)) };
      const why = acsRpcRefusal(req.method ?? '', params, accessKeyId, accessKeySecret, nonces);
      return why ? refuse(why) : accept();
    }
    const auth = /^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$/.exec(
      req.headers.authorization ?? '',
    );
    if (!auth) return refuse('no ACS3-HMAC-SHA256 authorization');
    if (auth[1] !== accessKeyId) return refuse('unknown AccessKeyId');
    const signed = auth[2]!.split(';');
    for (const h of ['host', 'x-acs-action', 'x-acs-content-sha256', 'x-acs-date', 'x-acs-signature-nonce', 'x-acs-version'])
      if (!signed.includes(h)) return refuse(`${h} not signed`);
    if (req.headers['x-acs-action'] !== 'SendSms' || req.headers['x-acs-version'] !== '2017-05-25')
      return refuse('not SendSms 2017-05-25');
    if (req.headers['x-acs-content-sha256'] !== sha256(body)) return refuse('body hash differs');
    const date = Date.parse(String(req.headers['x-acs-date']));
    if (!(Math.abs(Date.now() - date) < 15 * 60_000)) return refuse('x-acs-date too far');
    const query = [...url.searchParams.entries()]
      .map(([k, v]) => [acsEncode(k), acsEncode(v)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const headers = signed.map((h) => `${h}:${String(req.headers[h] ?? '').trim()}\n`).join('');
    const canonical = [req.method, url.pathname, query, headers, signed.join(';'), sha256(body)].join('\n');
    const expected = hmac(accessKeySecret, `ACS3-HMAC-SHA256\n${sha256(canonical)}`).toString('hex');
    if (!same(expected, auth[3]!)) return refuse('signature differs');
    accept();
  });
  return { ...server, sent, refused };
}

/** Tencent Cloud SMS (`SendSms`, version 2021-01-11), signed TC3-HMAC-SHA256. */
export async function fakeTencentSms(secretId: string, secretKey: string): Promise<FakeSms> {
  const sent: SentSms[] = [];
  const refused: string[] = [];
  // eslint-disable-next-line prefer-const -- assigned once the server listens; the handler reads it later
  let fake: FakeSms;
  const server = await listen((req, body, res) => {
    const refuse = (why: string) => {
      refused.push(why);
      json(res, 200, { Response: { Error: { Code: 'AuthFailure.SignatureFailure', Message: why }, RequestId: 'fake' } });
    };
    const auth =
      /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        req.headers.authorization ?? '',
      );
    if (!auth) return refuse('no TC3-HMAC-SHA256 authorization');
    const [, id, date, service, signedHeaders, signature] = auth as unknown as string[];
    if (id !== secretId) return refuse('unknown SecretId');
    if (req.headers['x-tc-action'] !== 'SendSms' || req.headers['x-tc-version'] !== '2021-01-11')
      return refuse('not SendSms 2021-01-11');
    const timestamp = Number(req.headers['x-tc-timestamp']);
    if (!(Math.abs(Date.now() / 1000 - timestamp) < 300)) return refuse('timestamp too far');
    if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date) return refuse('date is not the timestamp');
    const signed = signedHeaders!.split(';');
    if (!signed.includes('host') || !signed.includes('content-type')) return refuse('host and content-type must be signed');
    const hostname = String(req.headers.host ?? '').replace(/:\d+$/, '');
    if (service !== hostname.split('.')[0]) return refuse('service is not the endpoint');
    const headers = signed
      .map(
        (h) =>
          `${h}:${
            h === 'host'
              ? hostname
              : String(req.headers[h] ?? '')
                  .trim()
                  .toLowerCase()
          }\n`,
      )
      .join('');
    const url = new URL(req.url ?? '/', 'http://fake');
    const canonical = [req.method, url.pathname, url.search.slice(1), headers, signedHeaders, sha256(body)].join('\n');
    const scope = `${date}/${service}/tc3_request`;
    const toSign = `TC3-HMAC-SHA256\n${timestamp}\n${scope}\n${sha256(canonical)}`;
    const kDate = hmac(`TC3${secretKey}`, date!);
    const kService = hmac(kDate, service!);
    const kSigning = hmac(kService, 'tc3_request');
    if (!same(hmac(kSigning, toSign).toString('hex'), signature!)) return refuse('signature differs');
    const request = JSON.parse(body) as { PhoneNumberSet: string[]; TemplateParamSet?: string[] };
    const failure = fake.failNext;
    fake.failNext = undefined;
    if (!failure) for (const to of request.PhoneNumberSet) sent.push({ to, code: request.TemplateParamSet?.[0] });
    json(res, 200, {
      Response: {
        SendStatusSet: request.PhoneNumberSet.map((to, i) => ({
          SerialNo: `serial${sent.length}-${i}`,
          PhoneNumber: to,
          Fee: 1,
          SessionContext: '',
          Code: failure ?? 'Ok',
          Message: failure ? 'refused' : 'send success',
          IsoCode: 'CN',
        })),
        RequestId: `req${sent.length}`,
      },
    });
  });
  fake = { ...server, sent, refused };
  return fake;
}

/** Twilio's Messages resource (2010-04-01): HTTP basic auth with the Account SID and auth token, a form body. */
export async function fakeTwilioSms(accountSid: string, authToken: string): Promise<FakeSms> {
  const sent: SentSms[] = [];
  const refused: string[] = [];
  const server = await listen((req, body, res) => {
    const refuse = (why: string) => {
      refused.push(why);
      json(res, 401, {
        code: 20003,
        message: 'Authenticate',
        more_info: 'https://www.twilio.com/docs/errors/20003',
        status: 401,
      });
    };
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (!same(req.headers.authorization ?? '', expected)) return refuse('basic auth differs');
    if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${accountSid}/Messages.json`)
      return refuse(`unexpected ${req.method} ${req.url}`);
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return refuse('not a form');
    const form = new URLSearchParams(body);
    const to = form.get('To');
    if (!to || !form.get('Body') || !(form.get('From') || form.get('MessagingServiceSid')))
      return refuse('To, Body, From needed');
    sent.push({ to, text: form.get('Body')! });
    json(res, 201, {
      sid: `SM${String(sent.length).padStart(32, '0')}`,
      account_sid: accountSid,
      to,
      from: form.get('From'),
      body: form.get('Body'),
      status: 'queued',
      num_segments: '1',
      direction: 'outbound-api',
      api_version: '2010-04-01',
      date_created: new Date().toUTCString(),
      error_code: null,
      error_message: null,
      uri: `/2010-04-01/Accounts/${accountSid}/Messages/SM${sent.length}.json`,
    });
  });
  return { ...server, sent, refused };
}
