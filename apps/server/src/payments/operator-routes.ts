import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminOrderDetail,
  AdminOrdersQuery,
  AdminOrdersResponse,
  AdminRefundRequest,
  AdminRefundResponse,
  ErrorBody,
  EventsQuery,
  EventsResponse,
  ReconciliationQuery,
  ReconciliationResponse,
  RefundPreviewSchema,
  RequeryRequest,
  RequeryResponse,
  type Invoice,
} from '@polyvox/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import type { AuditTrail } from '../audit/trail.js';
import { auditFrom, operatorOf } from '../http/auth.js';
import type { OrdersService } from '../orders/service.js';
import { RefundFailed } from './provider.js';
import type { PaymentsService } from './service.js';
import { adminOrderView, emailOf, eventView, listOrders, paymentsOf } from './operator-view.js';
import { AppError } from '../platform/errors.js';

export interface OrderOperatorRoutesDeps {
  db: { kysely: Kysely<Database> };
  orders: OrdersService;
  payments: PaymentsService;
  audit: AuditTrail;
  /** The 发票 request of an order, as the console shows it (the invoices module answers it). */
  invoices: { viewByOrder(orderId: string): Promise<Invoice | null> };
}

const tags = ['operator'];
const params = z.object({ id: z.string().max(64) });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** The console's orders: the list, one order with its payments and provider events, refunds, the reconciliation. */
export function orderOperatorRoutes(deps: OrderOperatorRoutesDeps): FastifyPluginAsyncZod {
  const db = deps.db.kysely;
  return async (app) => {
    app.get(
      '/admin/api/orders',
      {
        config: { auth: 'operator', permission: 'orders.read' },
        schema: {
          tags,
          summary: 'Orders, newest first, filtered by status, method, currency, dates, and an order id, account id or email',
          querystring: AdminOrdersQuery,
          response: { 200: AdminOrdersResponse, ...errors },
        },
      },
      async (request) => listOrders(db, request.query),
    );

    app.get(
      '/admin/api/orders/:id',
      {
        config: { auth: 'operator', permission: 'orders.read' },
        schema: {
          tags,
          summary: 'One order with its payment attempts, the provider events received or asked for, and its 发票 request',
          params,
          response: { 200: AdminOrderDetail, ...errors },
        },
      },
      async (request) => {
        const order = await deps.orders.find(request.params.id);
        if (!order) throw new AppError('NOT_FOUND');
        const [email, payments, events, invoice] = await Promise.all([
          emailOf(db, order.account_id),
          paymentsOf(db, order.id),
          deps.payments.events.forOrder(order.id),
          deps.invoices.viewByOrder(order.id),
        ]);
        return { order: adminOrderView(order, email), payments, events: events.map(eventView), invoice };
      },
    );

    app.get(
      '/admin/api/payment-events',
      {
        config: { auth: 'operator', permission: 'orders.read' },
        schema: {
          tags,
          summary: 'Every payment notification received and provider answer, newest first (forged ones included)',
          querystring: EventsQuery,
          response: { 200: EventsResponse, ...errors },
        },
      },
      async (request) => {
        const { page, page_size, ...filters } = request.query;
        const { items, total } = await deps.payments.events.list(filters, page, page_size);
        return { items: items.map(eventView), total };
      },
    );

    app.get(
      '/admin/api/orders/:id/refund-preview',
      {
        config: { auth: 'operator', permission: 'orders.refund' },
        schema: {
          tags,
          summary: 'What a refund of the order returns now, changing nothing',
          description:
            "The brief's rule (orders/refund.ts, as `npm run admin -- refund`): the credits used since payment priced at the basic plan's price are kept, the rest of the money returned; the order's unused credits leave the balance. 409 ORDER_NOT_PAYABLE when the order is not successful or already refunded.",
          params,
          response: { 200: RefundPreviewSchema, ...errors, 409: ErrorBody },
        },
      },
      async (request) => {
        const p = await deps.orders.refundPreview(request.params.id);
        const order = (await deps.orders.find(request.params.id))!;
        return {
          order_id: order.id,
          used: p.used,
          used_at_basic: p.usedAtBasic,
          refundable_credits: p.refundableCredits,
          deducted: p.deducted,
          amount: p.amount,
          currency: p.currency,
          total: p.total,
          balance: p.balance,
          method: order.method,
        };
      },
    );

    app.post(
      '/admin/api/orders/:id/refund',
      {
        config: { auth: 'operator', permission: 'orders.refund' },
        schema: {
          tags,
          summary: 'Refund the order through its provider, once (the same refund as `npm run admin -- refund`)',
          description:
            'A reason is required; `expected_amount` (the previewed amount) makes the refund refuse with 400 VALIDATION_FAILED, changing nothing, when the account spent meanwhile and the amount differs. Two refunds at once: one is made, the other answers 409 ORDER_NOT_PAYABLE. A provider that refuses: 409 ORDER_NOT_PAYABLE, the credits given back, the order still refundable. Audited as `order.refund`.',
          params,
          body: AdminRefundRequest,
          response: { 200: AdminRefundResponse, ...errors, 409: ErrorBody },
        },
      },
      async (request) => {
        const id = request.params.id;
        const before = await deps.orders.find(id);
        if (!before) throw new AppError('NOT_FOUND');
        let result;
        try {
          result = await deps.payments.refund(
            id,
            request.body.expected_amount === undefined ? {} : { expectedAmount: request.body.expected_amount },
          );
        } catch (e) {
          if (e instanceof RefundFailed) {
            request.log.warn({ order_id: id, err: e.message }, 'refund refused by the provider; credits given back');
            throw new AppError('ORDER_NOT_PAYABLE', {}, { cause: e });
          }
          throw e;
        }
        const email = await emailOf(db, result.order.account_id);
        const after = adminOrderView(result.order, email);
        await deps.audit.record(
          auditFrom(
            request,
            'order.refund',
            { type: 'order', id },
            {
              before: { status: before.status, refunded_at: before.refunded_at, balance: result.balance + result.deducted },
              after: {
                refunded_at: after.refunded_at,
                amount: result.amount,
                currency: result.currency,
                credits_deducted: result.deducted,
                refund_ref: result.refundRef,
                balance: result.balance,
              },
              reason: request.body.reason,
            },
          ),
        );
        return {
          order: after,
          used: result.used,
          used_at_basic: result.usedAtBasic,
          deducted: result.deducted,
          amount: result.amount,
          currency: result.currency,
          balance: result.balance,
          refund_ref: result.refundRef,
        };
      },
    );

    app.get(
      '/admin/api/reconciliation',
      {
        config: { auth: 'operator', permission: 'orders.read' },
        schema: {
          tags,
          summary: 'Payment attempts whose provider state and ours differ',
          description:
            '`paid_not_applied`: the provider took the money, the order was not credited (a lost or rejected notification); `applied_not_paid`: credited, the provider does not show it paid; `duplicate_payment`: a second payment of a paid order (return it); `refunded_not_recorded`: the provider refunded what we did not; `unconfirmed`: a checkout at a real provider whose order lapsed with no word from it. Re-query the provider to settle each.',
          querystring: ReconciliationQuery,
          response: { 200: ReconciliationResponse, ...errors },
        },
      },
      async (request) => {
        const { kind, page, page_size } = request.query;
        const { items, total } = await deps.payments.reconciliation(kind, page, page_size);
        return { items: items as z.infer<typeof ReconciliationResponse>['items'], total, page, page_size };
      },
    );

    app.post(
      '/admin/api/orders/:id/requery',
      {
        config: { auth: 'operator', permission: 'orders.refund' },
        schema: {
          tags,
          summary: 'Ask the provider for the state of each payment attempt of the order, and apply a payment it took',
          description:
            'Each answer is recorded as a provider event (kind `query`). A payment the provider shows as paid that the order never applied is applied as a verified notification would be (same amount check, once). Audited as `order.requery`.',
          params,
          body: RequeryRequest,
          response: { 200: RequeryResponse, ...errors },
        },
      },
      async (request) => {
        const operator = operatorOf(request);
        const result = await deps.payments.requery(request.params.id, operator.accountId);
        const email = await emailOf(db, result.order.account_id);
        await deps.audit.record(
          auditFrom(
            request,
            'order.requery',
            { type: 'order', id: result.order.id },
            {
              before: { status: result.before.status, paid_at: result.before.paid_at },
              after: { status: result.order.status, paid_at: result.order.paid_at, answers: result.answers },
              reason: request.body.reason ?? null,
            },
          ),
        );
        return { order: adminOrderView(result.order, email), answers: result.answers };
      },
    );
  };
}
