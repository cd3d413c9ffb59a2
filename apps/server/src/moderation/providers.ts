import { createHmac, randomUUID } from 'node:crypto';

/**
 * External moderation providers behind one interface. Each is asked about one text and answers whether it is
 * refused and under which category; a provider that cannot answer (timeout, network, a non-2xx answer, a body that
 * is not what its protocol says) throws `ProviderUnavailable`, and the caller applies the operator's fail mode.
 */
export interface ModerationVerdict {
  flagged: boolean;
  /** The provider's own label of the first category it flagged. */
  category?: string;
}

export interface ModerationProvider {
  readonly name: 'aliyun' | 'openai';
  check(text: string, signal: AbortSignal): Promise<ModerationVerdict>;
}

export class ProviderUnavailable extends Error {}

async function call(url: string, init: RequestInit, name: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (cause) {
    throw new ProviderUnavailable(`${name}: ${(cause as Error).message}`, { cause });
  }
  const body = await res.text().catch(() => '');
  if (!res.ok) throw new ProviderUnavailable(`${name}: HTTP ${res.status} ${body.slice(0, 200)}`);
  try {
    return JSON.parse(body) as unknown;
  } catch (cause) {
    throw new ProviderUnavailable(`${name}: the answer is not JSON`, { cause });
  }
}

/** RFC 3986 encoding as Alibaba Cloud's RPC signature (v1) wants it. */
export function aliyunPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Signs the parameters of an Alibaba Cloud RPC call (signature version 1.0, HMAC-SHA1): the parameters sorted by
 * name and encoded, `METHOD&%2F&<encoded query>` signed with `<secret>&`, base64.
 */
export function aliyunSignature(method: string, params: Record<string, string>, secret: string): string {
  const canonical = Object.keys(params)
    .sort()
    .map((k) => `${aliyunPercentEncode(k)}=${aliyunPercentEncode(params[k]!)}`)
    .join('&');
  const toSign = `${method}&${aliyunPercentEncode('/')}&${aliyunPercentEncode(canonical)}`;
  return createHmac('sha1', `${secret}&`).update(toSign).digest('base64');
}

/**
 * Alibaba Cloud Content Moderation, text moderation (`TextModeration`, API version 2022-03-02, service
 * `chat_detection` unless set): POST form to the regional endpoint (`https://green-cip.cn-shanghai.aliyuncs.com`).
 * `Data.labels` is empty for a text that passes, else the comma-separated labels it was flagged with.
 */
export function aliyunProvider(opts: {
  endpoint: string;
  accessKeyId: string;
  accessKeySecret: string;
  service?: string;
  now?: () => Date;
}): ModerationProvider {
  const now = opts.now ?? (() => new Date());
  return {
    name: 'aliyun',
    async check(text, signal) {
      const params: Record<string, string> = {
        Action: 'TextModeration',
        Version: '2022-03-02',
        Format: 'JSON',
        AccessKeyId: opts.accessKeyId,
        SignatureMethod: 'HMAC-SHA1',
        SignatureVersion: '1.0',
        SignatureNonce: randomUUID(),
        Timestamp: now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
        Service: opts.service ?? 'chat_detection',
        ServiceParameters: JSON.stringify({ content: text }),
      };
      params.Signature = aliyunSignature('POST', params, opts.accessKeySecret);
      const body = new URLSearchParams(params).toString();
      const answer = (await call(
        `${opts.endpoint.replace(/\/+$/, '')}/`,
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, signal },
        'aliyun',
      )) as { Code?: unknown; Message?: unknown; Data?: { labels?: unknown } };
      if (answer.Code !== 200 || typeof answer.Data?.labels !== 'string') {
        throw new ProviderUnavailable(`aliyun: Code ${String(answer.Code)} ${String(answer.Message ?? '')}`);
      }
      const labels = answer.Data.labels
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean);
      return labels.length ? { flagged: true, category: labels[0]! } : { flagged: false };
    },
  };
}

/** OpenAI's moderation endpoint (`POST <base>/moderations`, bearer key): `results[0].flagged` and its categories. */
export function openAiProvider(opts: { baseUrl: string; apiKey: string; model?: string }): ModerationProvider {
  return {
    name: 'openai',
    async check(text, signal) {
      const answer = (await call(
        `${opts.baseUrl.replace(/\/+$/, '')}/moderations`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.apiKey}` },
          body: JSON.stringify({ model: opts.model ?? 'omni-moderation-latest', input: text }),
          signal,
        },
        'openai',
      )) as { results?: { flagged?: unknown; categories?: Record<string, unknown> }[] };
      const result = answer.results?.[0];
      if (!result || typeof result.flagged !== 'boolean') throw new ProviderUnavailable('openai: no result in the answer');
      if (!result.flagged) return { flagged: false };
      const category = Object.entries(result.categories ?? {}).find(([, v]) => v === true)?.[0];
      return { flagged: true, ...(category ? { category } : {}) };
    },
  };
}

export interface ModerationProviderConfig {
  MODERATION_PROVIDER: 'none' | 'aliyun' | 'openai';
  MODERATION_URL?: string | undefined;
  MODERATION_KEY_ID?: string | undefined;
  MODERATION_KEY?: string | undefined;
}

/** The provider the configuration names, or null (`none`). Start-up checks its keys (config.ts). */
export function moderationProviderOf(config: ModerationProviderConfig): ModerationProvider | null {
  switch (config.MODERATION_PROVIDER) {
    case 'aliyun':
      return aliyunProvider({
        endpoint: config.MODERATION_URL ?? 'https://green-cip.cn-shanghai.aliyuncs.com',
        accessKeyId: config.MODERATION_KEY_ID ?? '',
        accessKeySecret: config.MODERATION_KEY ?? '',
      });
    case 'openai':
      return openAiProvider({
        baseUrl: config.MODERATION_URL ?? 'https://api.openai.com/v1',
        apiKey: config.MODERATION_KEY ?? '',
      });
    default:
      return null;
  }
}
