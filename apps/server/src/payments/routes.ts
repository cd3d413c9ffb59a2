import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, PaymentMethodsResponse, PaymentRequest, PaymentResponse, SandboxCompleteRequest } from '@polyvox/contracts';
import type { PaymentsService } from './service.js';
import type { OrdersService } from '../orders/service.js';
import type { Config } from '../platform/config.js';
import { sessionOf } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import { returnOrigins, safeReturnUrl, storedReturnUrl } from './return-url.js';
import { sandboxPage } from './sandbox-page.js';

/** Notifications are small; a provider never sends more than a few kilobytes. */
const NOTIFY_BODY_LIMIT = 64 * 1024;
const NOTIFIED = ['card', 'alipay', 'wechat'] as const;
const NOTIFY_DESCRIPTIONS: Record<(typeof NOTIFIED)[number], string> = {
  card: 'Stripe webhook (`checkout.session.*` events), verified with `Stripe-Signature` and the endpoint secret. Answers 200 `{"received":true}`, or 400 when rejected.',
  alipay:
    'Alipay asynchronous notification (form-encoded), verified with RSA2 against the Alipay public key. Answers the plain text `success`, or `failure` when rejected.',
  wechat:
    'WeChat Pay APIv3 notification: `Wechatpay-Signature` verified with the platform key, the resource decrypted with AES-256-GCM and the APIv3 key. Answers 200 `{"code":"SUCCESS"}`, or 400 `{"code":"FAIL"}` when rejected.',
};

export interface PaymentRoutesDeps {
  payments: PaymentsService;
  orders: Pick<OrdersService, 'products'>;
  config: Pick<Config, 'PUBLIC_URL' | 'ALLOWED_ORIGINS'>;
}

export function paymentRoutes(deps: PaymentRoutesDeps): FastifyPluginAsyncZod {
  const origins = returnOrigins(deps.config);
  return async (app) => {
    app.get(
      '/payments/methods',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['orders'],
          summary: 'The payment methods this server is configured for (the console offers only these)',
          security: [],
          response: { 200: PaymentMethodsResponse },
        },
      },
      async () => ({ items: deps.payments.methods() }),
    );

    app.post(
      '/accounts/me/orders/:id/payment/:method',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['orders'],
          summary: 'Start paying an order: a page to open (`pay_url`) or a code to scan (`qr_code`)',
          description:
            'method ∈ alipay, wechat, card, sandbox. A method this server is not configured for answers 422 PAYMENT_METHOD_UNAVAILABLE; an order that is no longer pending 409 ORDER_NOT_PAYABLE. `return_url` must be a relative path (resolved against `PUBLIC_URL`) or a URL of the origin of `PUBLIC_URL` or one of `ALLOWED_ORIGINS`; the Host header is never trusted. Alipay and WeChat Pay take CNY: an order priced in USD is charged its CNY price there.',
          params: z.object({ id: z.string().max(64), method: z.string().max(32) }),
          querystring: z.object({ pf: z.literal('web').optional() }).passthrough(),
          body: PaymentRequest,
          response: { 200: PaymentResponse, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const returnUrl = safeReturnUrl(request.body.return_url, origins);
        return deps.payments.start(
          session.accountId,
          request.params.id,
          request.params.method,
          returnUrl,
          requestLocale(request),
        );
      },
    );

    app.get(
      '/pay/sandbox/:order_id',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['orders'],
          summary: 'The sandbox checkout page (HTML) of the embedded payment provider',
          security: [],
          params: z.object({ order_id: z.string().max(64) }),
          querystring: z.object({ token: z.string().max(256).optional() }).passthrough(),
        },
      },
      async (request, reply) => {
        const { order, payment } = await deps.payments.sandboxAttempt(request.params.order_id, request.query.token ?? '');
        const locale = requestLocale(request);
        const product = (await deps.orders.products.current()).get(order.product_id);
        const html = sandboxPage({
          locale,
          orderId: order.id,
          status: order.status as 'pending_payment',
          productName: product?.name[locale] ?? order.product_id,
          amount: Number(payment.amount),
          currency: payment.currency,
          token: request.query.token ?? '',
          returnUrl: storedReturnUrl(payment.return_url, origins),
        });
        return reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .send(html);
      },
    );

    app.post(
      '/pay/sandbox/:order_id/complete',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['orders'],
          summary: "The sandbox checkout's buttons: settle the order as a signed notification would, then return",
          description:
            'Takes JSON or the page’s form. `success` applies the payment once (credits, vip level and expiry with the order’s status); `fail` marks a pending order failed. Answers 303 to the `return_url` given when the payment started. A token that is not this order’s: 403.',
          security: [],
          params: z.object({ order_id: z.string().max(64) }),
          body: SandboxCompleteRequest,
          response: { 303: z.null().describe('redirect to return_url'), 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request, reply) => {
        const { returnUrl, unclosed } = await deps.payments.sandboxComplete(
          request.params.order_id,
          request.body.token,
          request.body.outcome,
        );
        if (unclosed.length) request.log.warn({ unclosed }, 'checkouts left open after the order was paid');
        return reply.header('cache-control', 'no-store').redirect(storedReturnUrl(returnUrl, origins), 303);
      },
    );

    await app.register(async (scope) => {
      // Signatures cover the bytes as sent: these routes read the body as text, whatever its type.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: NOTIFY_BODY_LIMIT }, (_request, body, done) => {
        done(null, typeof body === 'string' ? body : body.toString('utf8'));
      });
      for (const method of NOTIFIED) {
        scope.post(
          `/payments/${method}/notify`,
          {
            config: { auth: 'public' },
            schema: {
              tags: ['payments'],
              summary: `Payment notification from ${method === 'card' ? 'Stripe' : method === 'alipay' ? 'Alipay' : 'WeChat Pay'}`,
              description: `${NOTIFY_DESCRIPTIONS[method]} A verified payment is applied once, however often it is delivered; its amount and currency must match the checkout. 404 when the method is not configured.`,
              security: [],
              body: z.string().optional(),
            },
          },
          async (request, reply) => {
            const result = await deps.payments.notify(method, {
              headers: request.headers,
              raw: typeof request.body === 'string' ? request.body : '',
            });
            if (result.rejected) request.log.warn({ method, ...result.rejected }, 'payment notification rejected');
            if (result.unclosed)
              request.log.warn({ method, unclosed: result.unclosed }, 'checkouts left open after the order was paid');
            if (result.duplicate)
              request.log.error({ method, ...result.duplicate }, 'second payment for a paid order: return it');
            else if (result.applied) request.log.info({ method }, 'payment notification applied');
            return reply.status(result.answer.status).header('content-type', result.answer.contentType).send(result.answer.body);
          },
        );
      }
    });
  };
}
