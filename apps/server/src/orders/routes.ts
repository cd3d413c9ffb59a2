import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CreateOrderRequest,
  ErrorBody,
  OrderSchema,
  OrdersQuery,
  OrdersResponse,
  ProductsQuery,
  ProductsResponse,
  type Order,
  type PaymentMethod,
} from '@polyvox/contracts';
import type { OrdersService } from './service.js';
import { sessionOf } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import { orderView } from './service.js';
import { productView } from './products.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

export interface OrderRoutesDeps {
  orders: OrdersService;
  /** The payment methods this platform offers (the payments module's service is one). */
  payments: { methods(): PaymentMethod[] };
  /** Each order's 发票 request status, shown in the list (the invoices module answers it). */
  invoices: { statusOf(orderIds: string[]): Promise<Map<string, NonNullable<Order['invoice_status']>>> };
  /** Real-name users (REAL_NAME=phone): refuses an account without a verified phone number. */
  realName: { assert(accountId: string): Promise<void> };
}

export function orderRoutes(deps: OrderRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/products',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['orders'],
          summary: 'Plans and credit packs, named in the request language and priced in its currency',
          description:
            '`price` is in CNY for zh-CN and zh-TW and in USD otherwise; `prices` has both. `payment_methods` lists the configured payment methods.',
          security: [],
          querystring: ProductsQuery.passthrough(),
          response: { 200: ProductsResponse, 400: ErrorBody },
        },
      },
      async (request) => {
        const locale = requestLocale(request);
        return {
          items: (await deps.orders.products.current()).list(request.query.kind).map((p) => productView(p, locale)),
          payment_methods: deps.payments.methods(),
        };
      },
    );

    app.post(
      '/accounts/me/orders',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['orders'],
          summary: 'Order a product; the order waits for payment for 30 minutes',
          description:
            'Only a registered account buys (an anonymous session answers 401 UNAUTHENTICATED: sign in first). The free plan is granted, not sold. The order is priced in the currency of the request language. An account holds at most `ORDER_PENDING_LIMIT` orders awaiting payment at once (429 RATE_LIMITED with `retry-after` beyond).',
          body: CreateOrderRequest,
          response: { 201: OrderSchema, ...errors, 403: ErrorBody, 429: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.realName.assert(session.accountId);
        const order = await deps.orders.create(session.accountId, request.body.product, requestLocale(request));
        return reply.status(201).send(orderView(order));
      },
    );

    app.get(
      '/api/accounts/me/orders',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['orders'],
          summary: "The caller's orders, newest first",
          querystring: OrdersQuery.passthrough(),
          response: { 200: OrdersResponse, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const { items, total } = await deps.orders.list(session.accountId, request.query.start, request.query.limit);
        const invoices = await deps.invoices.statusOf(items.map((o) => o.id));
        return { items: items.map((o) => ({ ...orderView(o), invoice_status: invoices.get(o.id) ?? null })), total };
      },
    );

    // The contract lists orders under /api/; one order answers under both prefixes, as the return page may ask either.
    for (const url of ['/accounts/me/orders/:id', '/api/accounts/me/orders/:id']) {
      app.get(
        url,
        {
          config: { auth: 'session' },
          schema: {
            tags: ['orders'],
            summary: 'One of the caller’s orders (the checkout return page polls it)',
            description: "Another account's order answers 404, exactly as a missing one.",
            params: z.object({ id: z.string().max(64) }),
            response: { 200: OrderSchema, 401: ErrorBody, 404: ErrorBody },
          },
        },
        async (request) => {
          const session = sessionOf(request);
          return orderView(await deps.orders.get(request.params.id, session.accountId));
        },
      );
    }
  };
}
