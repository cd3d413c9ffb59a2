import { createPrivateKey } from 'node:crypto';
import { AlipaySdk } from 'alipay-sdk';
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

export interface AlipaySettings {
  appId: string;
  /** The application's RSA private key (PKCS#1 or PKCS#8, PEM or bare base64). */
  privateKey: string;
  /** Alipay's public key, which signs its notifications. */
  alipayPublicKey: string;
  gateway?: string;
}

function keyType(key: string): 'PKCS1' | 'PKCS8' {
  if (key.includes('BEGIN RSA PRIVATE KEY')) return 'PKCS1';
  if (key.includes('BEGIN PRIVATE KEY')) return 'PKCS8';
  try {
    createPrivateKey({ key: Buffer.from(key.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'pkcs8' });
    return 'PKCS8';
  } catch {
    return 'PKCS1';
  }
}

/** Yuan with two decimals, as Alipay writes amounts; fen in, string out and back. */
export const yuan = (fen: number): string => `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
export function fenOf(text: string | undefined): number {
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text ?? '');
  if (!m) return -1;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}

/** Beijing time, as Alipay reads time_expire. */
function beijing(date: Date): string {
  const d = new Date(date.getTime() + 8 * 3_600_000).toISOString();
  return `${d.slice(0, 10)} ${d.slice(11, 19)}`;
}

/** Alipay page pay (alipay.trade.page.pay); asynchronous notifications verified with RSA2. */
export function alipayProvider(settings: AlipaySettings): PaymentProvider {
  const privateKey = keyText(settings.privateKey);
  const sdk = new AlipaySdk({
    appId: settings.appId,
    privateKey,
    keyType: keyType(privateKey),
    alipayPublicKey: keyText(settings.alipayPublicKey),
    signType: 'RSA2',
    ...(settings.gateway ? { gateway: settings.gateway } : {}),
  });
  return {
    method: 'alipay',
    currencies: ['CNY'],
    async checkout(request: CheckoutRequest): Promise<CheckoutResult> {
      const url = sdk.pageExecute('alipay.trade.page.pay', 'GET', {
        bizContent: {
          out_trade_no: request.paymentId,
          product_code: 'FAST_INSTANT_TRADE_PAY',
          total_amount: yuan(request.amount),
          subject: request.description,
          time_expire: beijing(request.expiresAt),
        },
        returnUrl: request.returnUrl,
        notifyUrl: request.notifyUrl,
      });
      return { pay_url: url };
    },
    async verify(notification: IncomingNotification): Promise<VerifiedNotice> {
      const params: Record<string, string> = {};
      for (const [key, value] of new URLSearchParams(notification.raw)) {
        if (key === '__proto__') continue;
        params[key] = value;
      }
      if (!params.sign || !sdk.checkNotifySign(params, true)) throw new ForgedNotification('RSA2 signature does not verify');
      if (params.app_id !== settings.appId) throw new ForgedNotification('notification for another app_id');
      const paymentId = params.out_trade_no;
      if (!paymentId) return { outcome: 'ignored' };
      const status = params.trade_status;
      if (status === 'TRADE_SUCCESS' || status === 'TRADE_FINISHED') {
        return {
          outcome: 'paid',
          paymentId,
          amount: fenOf(params.total_amount),
          currency: 'CNY',
          providerRef: params.trade_no ?? '',
        };
      }
      return { outcome: 'ignored' };
    },
    async close(attempt) {
      const res = await sdk.exec(
        'alipay.trade.close',
        { bizContent: { out_trade_no: attempt.paymentId } },
        { validateSign: true },
      );
      // A trade the payer never opened does not exist at Alipay: nothing to close.
      if (res.code !== '10000' && res.subCode !== 'ACQ.TRADE_NOT_EXIST') {
        throw new Error(`alipay.trade.close: ${res.code} ${res.subCode ?? ''} ${res.subMsg ?? res.msg}`);
      }
    },
    async refund(request) {
      let res: { code?: string; msg?: string; subCode?: string; subMsg?: string; tradeNo?: string };
      try {
        // out_request_no is the order id: asked again, Alipay answers the same refund instead of a second one.
        res = await sdk.exec(
          'alipay.trade.refund',
          {
            bizContent: {
              out_trade_no: request.paymentId,
              refund_amount: yuan(request.amount),
              out_request_no: request.orderId,
              refund_reason: 'refund',
            },
          },
          { validateSign: true },
        );
      } catch (e) {
        throw new RefundFailed(`alipay.trade.refund: ${(e as Error).message}`, { cause: e });
      }
      if (res.code !== '10000') {
        throw new RefundFailed(
          `alipay.trade.refund: ${res.code ?? ''} ${res.subCode ?? ''} ${res.subMsg ?? res.msg ?? ''}`.trim(),
        );
      }
      return res.tradeNo ?? request.orderId;
    },
    async query(attempt) {
      const res = (await sdk.exec(
        'alipay.trade.query',
        { bizContent: { out_trade_no: attempt.paymentId } },
        { validateSign: true },
      )) as {
        code?: string;
        msg?: string;
        subCode?: string;
        subMsg?: string;
        tradeNo?: string;
        tradeStatus?: string;
        totalAmount?: string;
      };
      // A trade the payer never opened does not exist at Alipay.
      if (res.code !== '10000') {
        if (res.subCode === 'ACQ.TRADE_NOT_EXIST') return { state: 'unpaid', amount: null, currency: null, providerRef: null };
        throw new Error(`alipay.trade.query: ${res.code ?? ''} ${res.subCode ?? ''} ${res.subMsg ?? res.msg ?? ''}`.trim());
      }
      const paid = res.tradeStatus === 'TRADE_SUCCESS' || res.tradeStatus === 'TRADE_FINISHED';
      return {
        state: paid ? 'paid' : res.tradeStatus === 'TRADE_CLOSED' ? 'closed' : 'unpaid',
        amount: paid ? fenOf(res.totalAmount) : null,
        currency: paid ? 'CNY' : null,
        providerRef: res.tradeNo ?? null,
      };
    },
    answer(accepted: boolean): NotifyAnswer {
      // Alipay stops retrying only on the plain text `success`.
      return { status: 200, contentType: 'text/plain; charset=utf-8', body: accepted ? 'success' : 'failure' };
    },
  };
}
