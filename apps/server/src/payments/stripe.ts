import Stripe from 'stripe';
import type {
  CheckoutRequest,
  CheckoutResult,
  IncomingNotification,
  NotifyAnswer,
  PaymentProvider,
  VerifiedNotice,
} from './provider.js';
import { ForgedNotification, RefundFailed } from './provider.js';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Another base URL speaking Stripe's REST protocol (a local server in tests). */
  apiBase?: string;
}

const STRIPE_LOCALES = new Map([
  ['en', 'en'],
  ['zh-CN', 'zh'],
  ['zh-TW', 'zh-TW'],
] as const);

/** Card payments through Stripe Checkout; the webhook is verified with the endpoint's signing secret. */
export function stripeProvider(settings: StripeSettings): PaymentProvider {
  const base = settings.apiBase ? new URL(settings.apiBase) : null;
  const stripe = new Stripe(settings.secretKey, {
    maxNetworkRetries: 1,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  return {
    method: 'card',
    currencies: ['USD', 'CNY'],
    async checkout(request: CheckoutRequest): Promise<CheckoutResult> {
      // Stripe wants a session to live at least 30 minutes; a shorter order still refuses the payment itself.
      const expiresAt = Math.max(Math.floor(request.expiresAt.getTime() / 1000), Math.floor(Date.now() / 1000) + 1860);
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          client_reference_id: request.paymentId,
          metadata: { order_id: request.orderId, payment_id: request.paymentId },
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: request.currency.toLowerCase(),
                unit_amount: request.amount,
                product_data: { name: request.description },
              },
            },
          ],
          success_url: request.returnUrl,
          cancel_url: request.returnUrl,
          expires_at: expiresAt,
          locale: STRIPE_LOCALES.get(request.locale) ?? 'auto',
        },
        { idempotencyKey: `checkout-${request.paymentId}` },
      );
      if (!session.url) throw new Error('Stripe returned a Checkout Session without a url');
      return { pay_url: session.url, providerRef: session.id };
    },
    async verify(notification: IncomingNotification): Promise<VerifiedNotice> {
      const header = notification.headers['stripe-signature'];
      if (typeof header !== 'string') throw new ForgedNotification('no Stripe-Signature header');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(notification.raw, header, settings.webhookSecret);
      } catch (e) {
        throw new ForgedNotification((e as Error).message);
      }
      if (
        event.type === 'checkout.session.completed' ||
        event.type === 'checkout.session.async_payment_succeeded' ||
        event.type === 'checkout.session.async_payment_failed' ||
        event.type === 'checkout.session.expired'
      ) {
        const session = event.data.object;
        const paymentId = session.client_reference_id ?? session.metadata?.payment_id;
        if (!paymentId) return { outcome: 'ignored' };
        if (event.type === 'checkout.session.async_payment_failed') {
          return { outcome: 'failed', paymentId, providerRef: session.id };
        }
        // An expired session is only the end of that checkout: the order itself may still be paid another way.
        if (event.type === 'checkout.session.expired' || session.payment_status !== 'paid') return { outcome: 'ignored' };
        return {
          outcome: 'paid',
          paymentId,
          amount: session.amount_total ?? -1,
          currency: (session.currency ?? '').toUpperCase(),
          providerRef: session.id,
        };
      }
      return { outcome: 'ignored' };
    },
    async close(attempt) {
      if (!attempt.providerRef) return;
      const session = await stripe.checkout.sessions.retrieve(attempt.providerRef);
      if (session.status === 'complete') throw new Error(`Checkout Session ${session.id} is already complete`);
      if (session.status === 'open') await stripe.checkout.sessions.expire(attempt.providerRef);
    },
    async refund(request) {
      if (!request.providerRef) throw new RefundFailed('the payment has no Checkout Session');
      try {
        const session = await stripe.checkout.sessions.retrieve(request.providerRef);
        const intent = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
        if (!intent) throw new RefundFailed(`Checkout Session ${session.id} has no payment intent`);
        const refund = await stripe.refunds.create(
          {
            payment_intent: intent,
            amount: request.amount,
            reason: 'requested_by_customer',
            metadata: { order_id: request.orderId },
          },
          { idempotencyKey: `refund-${request.orderId}` },
        );
        if (refund.status === 'failed' || refund.status === 'canceled') {
          throw new RefundFailed(`Stripe refund ${refund.id} is ${refund.status}`);
        }
        return refund.id;
      } catch (e) {
        if (e instanceof RefundFailed) throw e;
        throw new RefundFailed(`Stripe: ${(e as Error).message}`, { cause: e });
      }
    },
    async query(attempt) {
      // The Checkout Session is made when the checkout starts: an attempt without one never reached Stripe.
      if (!attempt.providerRef) return { state: 'unpaid', amount: null, currency: null, providerRef: null };
      const session = await stripe.checkout.sessions.retrieve(attempt.providerRef);
      const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required';
      return {
        state: paid ? 'paid' : session.status === 'expired' ? 'closed' : 'unpaid',
        amount: paid ? (session.amount_total ?? null) : null,
        currency: paid && session.currency ? session.currency.toUpperCase() : null,
        providerRef: session.id,
      };
    },
    answer(accepted: boolean): NotifyAnswer {
      return accepted
        ? { status: 200, contentType: 'application/json', body: '{"received":true}' }
        : { status: 400, contentType: 'application/json', body: '{"received":false}' };
    },
  };
}
