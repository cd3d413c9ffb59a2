import { createPublicKey, createVerify, type KeyObject } from 'node:crypto';
import WxPay from 'wechatpay-node-v3';
import type {
  CheckoutRequest,
  CheckoutResult,
  IncomingNotification,
  NotifyAnswer,
  PaymentProvider,
  VerifiedNotice,
} from './provider.js';
import { ForgedNotification, RefundFailed } from './provider.js';
import { keyText } from './keys.js';

export interface WechatSettings {
  mchId: string;
  appId: string;
  /** The APIv3 key (32 characters) that encrypts notification resources. */
  apiV3Key: string;
  /** The merchant's API private key, which signs our requests. */
  privateKey: string;
  /** The serial number of the merchant's API certificate. */
  serialNo: string;
  /** The WeChat Pay platform certificate or WeChat Pay public key, which signs answers and notifications. */
  platformCert: string;
  apiBase?: string;
}

const OFFICIAL_BASE = 'https://api.mch.weixin.qq.com';
/** WeChat Pay's own advice: refuse notifications whose timestamp is more than five minutes off. */
const MAX_SKEW_SECONDS = 300;

function header(headers: IncomingNotification['headers'], name: string): string {
  const value = headers[name];
  return typeof value === 'string' ? value : '';
}

function verifySignature(key: KeyObject, timestamp: string, nonce: string, body: string, signature: string): boolean {
  if (!timestamp || !nonce || !signature) return false;
  return createVerify('RSA-SHA256').update(`${timestamp}\n${nonce}\n${body}\n`).verify(key, signature, 'base64');
}

/** RFC 3339 in Beijing time, as WeChat Pay reads time_expire. */
function rfc3339Beijing(date: Date): string {
  return `${new Date(date.getTime() + 8 * 3_600_000).toISOString().slice(0, 19)}+08:00`;
}

/**
 * WeChat Pay native (QR code) payments with APIv3. The SDK signs requests and decrypts notification resources;
 * its requests go through our own fetch-based transport, which sends them to WECHAT_API_BASE (the SDK writes the
 * official host into every URL) and checks the platform's signature on every answer.
 */
export function wechatProvider(settings: WechatSettings): PaymentProvider {
  const platformPem = keyText(settings.platformCert);
  const platformKey = createPublicKey(platformPem);
  const base = (settings.apiBase ?? OFFICIAL_BASE).replace(/\/+$/, '');
  const pay = new WxPay({
    appid: settings.appId,
    mchid: settings.mchId,
    // The SDK only reads a certificate here to find a serial number; the serial is given, so the platform's will do.
    publicKey: Buffer.from(platformPem),
    privateKey: Buffer.from(keyText(settings.privateKey)),
    serial_no: settings.serialNo,
    key: settings.apiV3Key,
  });
  async function send(method: 'GET' | 'POST', url: string, headers: Record<string, string>, params?: Record<string, unknown>) {
    const target = url.startsWith(OFFICIAL_BASE) ? base + url.slice(OFFICIAL_BASE.length) : url;
    const res = await fetch(target, {
      method,
      headers: { ...headers, 'Accept-Encoding': 'identity' },
      ...(params ? { body: JSON.stringify(params) } : {}),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    const signed = verifySignature(
      platformKey,
      res.headers.get('wechatpay-timestamp') ?? '',
      res.headers.get('wechatpay-nonce') ?? '',
      text,
      res.headers.get('wechatpay-signature') ?? '',
    );
    if (!signed) return { status: 502, error: 'answer not signed by the WeChat Pay platform' };
    let data: unknown = text;
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      /* kept as text */
    }
    return res.ok ? { status: res.status, data } : { status: res.status, error: data };
  }
  pay.createHttp({
    post: (url, params, headers) => send('POST', url, headers, params),
    get: (url, headers) => send('GET', url, headers),
    upload: () => Promise.reject(new Error('uploads are not used')),
  });
  return {
    method: 'wechat',
    currencies: ['CNY'],
    async checkout(request: CheckoutRequest): Promise<CheckoutResult> {
      const res = await pay.transactions_native({
        description: request.description.slice(0, 127),
        out_trade_no: request.paymentId,
        time_expire: rfc3339Beijing(request.expiresAt),
        notify_url: request.notifyUrl,
        amount: { total: request.amount, currency: 'CNY' },
      });
      const codeUrl = (res.data as { code_url?: unknown } | undefined)?.code_url;
      if (res.status !== 200 || typeof codeUrl !== 'string') {
        throw new Error(`WeChat Pay native order failed: ${res.status} ${JSON.stringify(res.error ?? res.data)}`);
      }
      return { qr_code: codeUrl };
    },
    async verify(notification: IncomingNotification): Promise<VerifiedNotice> {
      const timestamp = header(notification.headers, 'wechatpay-timestamp');
      const ok = verifySignature(
        platformKey,
        timestamp,
        header(notification.headers, 'wechatpay-nonce'),
        notification.raw,
        header(notification.headers, 'wechatpay-signature'),
      );
      if (!ok) throw new ForgedNotification('Wechatpay-Signature does not verify');
      if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) {
        throw new ForgedNotification('Wechatpay-Timestamp is too far from now');
      }
      let resource: { ciphertext?: unknown; associated_data?: unknown; nonce?: unknown };
      try {
        resource = (JSON.parse(notification.raw) as { resource?: typeof resource }).resource ?? {};
      } catch {
        throw new ForgedNotification('body is not JSON');
      }
      if (typeof resource.ciphertext !== 'string' || typeof resource.nonce !== 'string') {
        throw new ForgedNotification('no encrypted resource');
      }
      let plain: {
        mchid?: string;
        out_trade_no?: string;
        transaction_id?: string;
        trade_state?: string;
        amount?: { total?: number; currency?: string };
      };
      try {
        plain = pay.decipher_gcm(resource.ciphertext, String(resource.associated_data ?? ''), resource.nonce, settings.apiV3Key);
      } catch {
        throw new ForgedNotification('resource does not decrypt with the APIv3 key');
      }
      if (typeof plain !== 'object' || plain === null || plain.mchid !== settings.mchId) {
        throw new ForgedNotification('resource is not for this merchant');
      }
      if (!plain.out_trade_no || plain.trade_state !== 'SUCCESS') return { outcome: 'ignored' };
      return {
        outcome: 'paid',
        paymentId: plain.out_trade_no,
        amount: typeof plain.amount?.total === 'number' ? plain.amount.total : -1,
        currency: plain.amount?.currency ?? '',
        providerRef: plain.transaction_id ?? '',
      };
    },
    async close(attempt) {
      const res = await pay.close(attempt.paymentId);
      if (res.status !== 204 && res.status !== 200)
        throw new Error(`WeChat Pay close failed: ${res.status} ${JSON.stringify(res.error)}`);
    },
    async refund(request) {
      let res: { status: number; data?: unknown; error?: unknown };
      try {
        // out_refund_no is the order id: asked again, WeChat Pay answers the same refund instead of a second one.
        res = await pay.refunds({
          out_trade_no: request.paymentId,
          out_refund_no: request.orderId,
          reason: 'refund',
          amount: { refund: request.amount, total: request.total, currency: 'CNY' },
        });
      } catch (e) {
        throw new RefundFailed(`WeChat Pay refund: ${(e as Error).message}`, { cause: e });
      }
      const data = res.data as { refund_id?: string; status?: string } | undefined;
      // PROCESSING is accepted: WeChat Pay finishes it on its side (ABNORMAL and CLOSED are not).
      if (res.status !== 200 || !data?.refund_id || (data.status !== 'SUCCESS' && data.status !== 'PROCESSING')) {
        throw new RefundFailed(`WeChat Pay refund: ${res.status} ${JSON.stringify(res.error ?? res.data)}`);
      }
      return data.refund_id;
    },
    async query(attempt) {
      const res = await pay.query({ out_trade_no: attempt.paymentId });
      const error = res.error as { code?: string } | undefined;
      // An order the payer never scanned may not exist at WeChat Pay.
      if (res.status === 404 && error?.code === 'ORDER_NOT_EXIST')
        return { state: 'unpaid', amount: null, currency: null, providerRef: null };
      const data = res.data as
        { trade_state?: string; transaction_id?: string; amount?: { total?: number; currency?: string } } | undefined;
      if (res.status !== 200 || !data?.trade_state)
        throw new Error(`WeChat Pay query failed: ${res.status} ${JSON.stringify(res.error ?? res.data)}`);
      const state = data.trade_state;
      const paid = state === 'SUCCESS' || state === 'REFUND';
      return {
        state:
          state === 'REFUND'
            ? 'refunded'
            : paid
              ? 'paid'
              : state === 'CLOSED' || state === 'REVOKED'
                ? 'closed'
                : state === 'PAYERROR'
                  ? 'failed'
                  : 'unpaid',
        amount: paid && typeof data.amount?.total === 'number' ? data.amount.total : null,
        currency: paid ? (data.amount?.currency ?? 'CNY') : null,
        providerRef: data.transaction_id ?? null,
      };
    },
    answer(accepted: boolean): NotifyAnswer {
      return accepted
        ? { status: 200, contentType: 'application/json', body: '{"code":"SUCCESS","message":"OK"}' }
        : { status: 400, contentType: 'application/json', body: '{"code":"FAIL","message":"rejected"}' };
    },
  };
}
