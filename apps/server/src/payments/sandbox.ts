import { hmac, safeEqualHex } from '../platform/crypto.js';
import type { CheckoutRequest, CheckoutResult, NotifyAnswer, PaymentProvider, VerifiedNotice } from './provider.js';
import { ForgedNotification } from './provider.js';

/** The token of a sandbox checkout: the payment attempt's id and an HMAC binding it to its order. */
export function sandboxToken(secret: string, orderId: string, paymentId: string): string {
  return `${paymentId}.${hmac(secret, `sandbox:${orderId}:${paymentId}`)}`;
}

/** The payment id a token names, when the token was made by this server for this order; null otherwise. */
export function checkSandboxToken(secret: string, orderId: string, token: string): string | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const paymentId = token.slice(0, dot);
  const mac = token.slice(dot + 1);
  if (!/^[0-9a-f]{64}$/.test(mac)) return null;
  return safeEqualHex(mac, hmac(secret, `sandbox:${orderId}:${paymentId}`)) ? paymentId : null;
}

/**
 * The embedded default: a checkout page of the server's own (payments/sandbox-page.ts). Its buttons settle the
 * order through the same path a verified provider notification takes.
 */
export function sandboxProvider(secret: string): PaymentProvider {
  return {
    method: 'sandbox',
    currencies: ['CNY', 'USD'],
    async checkout(request: CheckoutRequest): Promise<CheckoutResult> {
      const token = sandboxToken(secret, request.orderId, request.paymentId);
      const query = new URLSearchParams({ token, lang: request.locale });
      return { pay_url: `/pay/sandbox/${encodeURIComponent(request.orderId)}?${query.toString()}` };
    },
    async verify(): Promise<VerifiedNotice> {
      throw new ForgedNotification('the sandbox takes no notifications');
    },
    // Nothing left the payer's account: the refund is recorded locally only.
    async refund(request) {
      return `sandbox_refund_${request.orderId}`;
    },
    // The sandbox is this server: what it knows of an attempt is the attempt's own row (PaymentsService reads it).
    async query() {
      throw new Error('the sandbox is queried from its own payment rows');
    },
    answer(accepted: boolean): NotifyAnswer {
      return { status: accepted ? 200 : 400, contentType: 'text/plain', body: accepted ? 'ok' : 'rejected' };
    },
  };
}
