import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One text message: the number in E.164, the code, and the whole text in the user's language (for providers that send text). */
export interface SmsMessage {
  to: string;
  code: string;
  text: string;
}

export interface SmsSender {
  /** Which transport (file, alibaba, tencent, twilio), for logs and the operator. */
  readonly kind: string;
  send(message: SmsMessage): Promise<void>;
}

/**
 * Chooses the transport from SMS_URL:
 * - `file://<dir>`: one file per message holding the number and the text (the embedded default);
 * - `alibaba://<AccessKeyId>:<AccessKeySecret>@<endpoint>?sign=<SignName>&template=<TemplateCode>`: Alibaba Cloud SMS
 *   (`dysmsapi.aliyuncs.com`; the template has a `${code}` parameter);
 * - `tencent://<SecretId>:<SecretKey>@<endpoint>?app=<SdkAppId>&sign=<SignName>&template=<TemplateId>&region=ap-guangzhou`:
 *   Tencent Cloud SMS (`sms.tencentcloudapi.com`; the template's one parameter is the code);
 * - `twilio://<AccountSid>:<AuthToken>@<endpoint>?from=<number or MessagingServiceSid>`: Twilio (`api.twilio.com`).
 * `tls=off` sends over plain HTTP (a local test server only).
 */
export function createSmsSender(smsUrl: string): SmsSender {
  const url = new URL(smsUrl);
  switch (url.protocol) {
    case 'file:':
      return fileSms(fileURLToPath(url));
    case 'alibaba:':
      return alibabaSms(url);
    case 'tencent:':
      return tencentSms(url);
    case 'twilio:':
      return twilioSms(url);
    default:
      throw new Error(`SMS_URL: unsupported scheme ${url.protocol}`);
  }
}

function need(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  if (!value) throw new Error(`SMS_URL: ${url.protocol}// needs ?${name}=`);
  return value;
}

function credentials(url: URL): { id: string; secret: string } {
  const id = decodeURIComponent(url.username);
  const secret = decodeURIComponent(url.password);
  if (!id || !secret) throw new Error(`SMS_URL: ${url.protocol}// needs <id>:<secret>@ before the endpoint`);
  return { id, secret };
}

function plain(url: URL): boolean {
  return url.searchParams.get('tls') === 'off';
}

function fileSms(dir: string): SmsSender {
  return {
    kind: 'file',
    async send(message) {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const digits = message.to.replace(/[^0-9]/g, '');
      const hash = createHash('sha256').update(message.to).digest('hex').slice(0, 8);
      const name = `${stamp}-${digits}-${hash}-${randomUUID().slice(0, 8)}.txt`;
      const tmp = path.join(dir, `.${name}.tmp`);
      // Messages hold sign-in codes: readable by the server's user only.
      await fs.writeFile(tmp, `To: ${message.to}\n\n${message.text}\n`, { mode: 0o600 });
      await fs.rename(tmp, path.join(dir, name));
    },
  };
}

/**
 * A provider's SDK, loaded when its first message is sent: the three SDKs weigh about 16 MB of the server's heap,
 * which a server on another provider (or the file outbox) would otherwise keep, and its garbage collector walk.
 */
function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** A provider's refusal: its code and message go to the log, the user hears INTERNAL. */
export class SmsProviderError extends Error {}

function alibabaSms(url: URL): SmsSender {
  const { id, secret } = credentials(url);
  const signName = need(url, 'sign');
  const templateCode = need(url, 'template');
  const sdk = onFirstUse(async () => {
    const [{ default: Dysmsapi, SendSmsRequest }, { $OpenApiUtil }] = await Promise.all([
      import('@alicloud/dysmsapi20170525'),
      import('@alicloud/openapi-core'),
    ]);
    const config = new $OpenApiUtil.Config({
      accessKeyId: id,
      accessKeySecret: secret,
      endpoint: url.host || 'dysmsapi.aliyuncs.com',
      protocol: plain(url) ? 'http' : 'https',
    });
    return { client: new Dysmsapi(config), SendSmsRequest };
  });
  return {
    kind: 'alibaba',
    async send(message) {
      const { client, SendSmsRequest } = await sdk();
      // Mainland numbers go without the country code; others in full, as the service asks.
      const phone = message.to.startsWith('+86') ? message.to.slice(3) : message.to.replace(/^\+/, '00');
      const answer = await client.sendSms(
        new SendSmsRequest({
          phoneNumbers: phone,
          signName,
          templateCode,
          templateParam: JSON.stringify({ code: message.code }),
        }),
      );
      const body = answer.body;
      if (body?.code !== 'OK') throw new SmsProviderError(`alibaba: ${body?.code ?? 'no answer'} ${body?.message ?? ''}`);
    },
  };
}

function tencentSms(url: URL): SmsSender {
  const { id, secret } = credentials(url);
  const appId = need(url, 'app');
  const signName = need(url, 'sign');
  const templateId = need(url, 'template');
  const sdk = onFirstUse(async () => {
    const { default: tencentcloud } = await import('tencentcloud-sdk-nodejs-sms');
    const Client = tencentcloud.sms.v20210111.Client;
    return new Client({
      credential: { secretId: id, secretKey: secret },
      region: url.searchParams.get('region') ?? 'ap-guangzhou',
      profile: {
        httpProfile: { endpoint: url.host || 'sms.tencentcloudapi.com', protocol: plain(url) ? 'http://' : 'https://' },
      },
    });
  });
  return {
    kind: 'tencent',
    async send(message) {
      const client = await sdk();
      const answer = await client.SendSms({
        PhoneNumberSet: [message.to],
        SmsSdkAppId: appId,
        SignName: signName,
        TemplateId: templateId,
        TemplateParamSet: [message.code],
      });
      const status = answer.SendStatusSet?.[0];
      if (status?.Code !== 'Ok') throw new SmsProviderError(`tencent: ${status?.Code ?? 'no answer'} ${status?.Message ?? ''}`);
    },
  };
}

function twilioSms(url: URL): SmsSender {
  const { id, secret } = credentials(url);
  const from = need(url, 'from');
  const host = url.host || 'api.twilio.com';
  const sdk = onFirstUse(async () => {
    const { default: twilio } = await import('twilio');
    const client = twilio(id, secret);
    // The Api domain is made once per client; pointing it elsewhere sends every call there (a test's local server).
    if (host !== 'api.twilio.com') client.api.baseUrl = `${plain(url) ? 'http' : 'https'}://${host}`;
    return client;
  });
  return {
    kind: 'twilio',
    async send(message) {
      const client = await sdk();
      const options = from.startsWith('MG')
        ? { to: message.to, messagingServiceSid: from, body: message.text }
        : { to: message.to, from, body: message.text };
      const answer = await client.messages.create(options);
      if (answer.status === 'failed' || answer.status === 'undelivered')
        throw new SmsProviderError(`twilio: ${answer.status} ${answer.errorCode ?? ''} ${answer.errorMessage ?? ''}`);
    },
  };
}
