import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, InvoiceRequestBody, InvoiceSchema } from '@polyvox/contracts';
import { sessionOf } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import type { InvoicesService } from './service.js';
import { invoiceView } from './service.js';

export interface InvoiceRoutesDeps {
  invoices: InvoicesService;
}

const params = z.object({ id: z.string().max(64) });
const fileUrl = (orderId: string) => `/api/accounts/me/orders/${encodeURIComponent(orderId)}/invoice/file`;

/**
 * The user's receipts and 发票 requests, beside the contract's order routes: reads under `/api/accounts/me/orders/{id}/…`
 * (as the order list) and under `/accounts/me/orders/{id}/…` (as one order), the request where orders are made.
 */
export function invoiceRoutes(deps: InvoiceRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    for (const prefix of ['/api/accounts/me/orders', '/accounts/me/orders']) {
      app.get(
        `${prefix}/:id/receipt`,
        {
          config: { auth: 'session' },
          schema: {
            tags: ['orders'],
            summary: 'The receipt of a paid order, as a PDF in the request language',
            description:
              'Order, product, amount, payment method, time, and the seller named in the settings (`RECEIPT_ISSUER_*`). `content-language` says the language written: English when the server has no font with Chinese glyphs. An order that is not paid, or another account’s, answers 404.',
            params,
          },
        },
        async (request, reply) => {
          const session = sessionOf(request);
          const { pdf: bytes, locale } = await deps.invoices.receipt(
            request.params.id,
            session.accountId,
            requestLocale(request),
          );
          return reply
            .header('content-type', 'application/pdf')
            .header('content-language', locale)
            .header('content-disposition', `attachment; filename="receipt-${request.params.id.replace(/[^\w-]/g, '')}.pdf"`)
            .header('cache-control', 'private, no-store')
            .send(Buffer.from(bytes));
        },
      );

      app.get(
        `${prefix}/:id/invoice`,
        {
          config: { auth: 'session' },
          schema: {
            tags: ['orders'],
            summary: 'The 发票 requested on one of the caller’s orders',
            description: '404 when none was requested.',
            params,
            response: { 200: InvoiceSchema, 401: ErrorBody, 404: ErrorBody },
          },
        },
        async (request) => {
          const session = sessionOf(request);
          const row = await deps.invoices.forOrder(session.accountId, request.params.id);
          return invoiceView(row, fileUrl(row.order_id));
        },
      );

      app.get(
        `${prefix}/:id/invoice/file`,
        {
          config: { auth: 'session' },
          schema: {
            tags: ['orders'],
            summary: 'The issued 发票 (PDF) of one of the caller’s orders',
            description: '404 until finance issued it.',
            params,
          },
        },
        async (request, reply) => {
          const session = sessionOf(request);
          const bytes = await deps.invoices.fileForOrder(session.accountId, request.params.id);
          return reply
            .header('content-type', 'application/pdf')
            .header('content-disposition', `attachment; filename="invoice-${request.params.id.replace(/[^\w-]/g, '')}.pdf"`)
            .header('cache-control', 'private, no-store')
            .send(bytes);
        },
      );
    }

    app.post(
      '/accounts/me/orders/:id/invoice',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['orders'],
          summary: 'Request a 发票 on a paid order (or correct a request not issued yet)',
          description:
            '`type`: `normal` (普通发票) or `special` (增值税专用发票, which needs `tax_number`). One request per order: asking again corrects a waiting or rejected request (200); an order already invoiced or refunded answers 400 VALIDATION_FAILED; an order not paid, or another account’s, 404. The request appears in the operator console; the user is mailed at each step (received, issued, rejected) at `email`, in the request language.',
          params,
          body: InvoiceRequestBody,
          response: { 200: InvoiceSchema, 201: InvoiceSchema, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        const { row, created } = await deps.invoices.request(
          session.accountId,
          request.params.id,
          request.body,
          requestLocale(request),
        );
        return reply.status(created ? 201 : 200).send(invoiceView(row, fileUrl(row.order_id)));
      },
    );
  };
}
