import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminInvoicesQuery,
  AdminInvoicesResponse,
  ErrorBody,
  InvoiceRejectRequest,
  InvoiceSchema,
  sizeLimitText,
} from '@polyvox/contracts';
import type { AuditTrail } from '../audit/trail.js';
import { auditFrom, operatorOf } from '../http/auth.js';
import { AppError, isAppError } from '../platform/errors.js';
import { INVOICE_FILE_MAX_BYTES, invoiceView, type InvoiceRow, type InvoicesService } from './service.js';

export interface InvoiceOperatorRoutesDeps {
  invoices: InvoicesService;
  audit: AuditTrail;
}

const tags = ['operator'];
const params = z.object({ id: z.string().max(64) });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
export const adminInvoiceFileUrl = (id: string) => `/admin/api/invoices/${encodeURIComponent(id)}/file`;

/** What the audit entry keeps of a request: its state, never the file. */
const summary = (row: InvoiceRow) => ({
  status: row.status,
  type: row.type,
  title: row.title,
  tax_number: row.tax_number,
  invoice_number: row.invoice_number,
  note: row.note,
});

/** Finance's 发票 desk: the requests, issuing one with its file, rejecting one with a reason. */
export function invoiceOperatorRoutes(deps: InvoiceOperatorRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/api/invoices',
      {
        config: { auth: 'operator', permission: 'invoices.manage' },
        schema: {
          tags,
          summary: '发票 requests (waiting ones oldest first; the others newest first)',
          querystring: AdminInvoicesQuery,
          response: { 200: AdminInvoicesResponse, ...errors },
        },
      },
      async (request) => {
        const { status, page, page_size } = request.query;
        const { items, total } = await deps.invoices.list(status, page, page_size);
        return {
          items: items.map((row) => ({
            ...invoiceView(row, adminInvoiceFileUrl(row.id)),
            account_id: row.account_id,
            account_email: row.account_email,
            order_amount: Number(row.order_amount),
            order_currency: row.order_currency,
            order_product: row.order_product,
            locale: row.locale,
            handled_by: row.handled_by,
          })),
          total,
          page,
          page_size,
        };
      },
    );

    app.get(
      '/admin/api/invoices/:id/file',
      {
        config: { auth: 'operator', permission: 'invoices.manage' },
        schema: { tags, summary: 'The issued invoice file (PDF)', params },
      },
      async (request, reply) => {
        const bytes = await deps.invoices.adminFile(request.params.id);
        return reply
          .header('content-type', 'application/pdf')
          .header('content-disposition', `attachment; filename="invoice-${request.params.id.replace(/[^\w-]/g, '')}.pdf"`)
          .header('cache-control', 'private, no-store')
          .send(bytes);
      },
    );

    app.post(
      '/admin/api/invoices/:id/issue',
      {
        config: { auth: 'operator', permission: 'invoices.manage' },
        schema: {
          tags,
          summary:
            'Mark a 发票 request issued and attach its file (multipart `file`: a PDF, at most 10 MB; field `invoice_number`)',
          description:
            'The file is kept in storage; the user is mailed and downloads it from the orders page. Issuing again replaces the file. A rejected request is not issued (400). Audited as `invoice.issue`.',
          consumes: ['multipart/form-data'],
          params,
          response: { 200: InvoiceSchema, ...errors, 413: ErrorBody, 415: ErrorBody },
        },
      },
      async (request) => {
        if (!request.isMultipart()) throw new AppError('UNSUPPORTED_FILE_TYPE');
        let file: Buffer | undefined;
        let invoiceNumber: string | null = null;
        try {
          for await (const part of request.parts({ limits: { fileSize: INVOICE_FILE_MAX_BYTES + 1, files: 1, fields: 5 } })) {
            if (part.type === 'field' && part.fieldname === 'invoice_number') {
              const value = String(part.value).trim();
              if (value.length > 64)
                throw new AppError('VALIDATION_FAILED', { field: 'invoice_number', rule: 'at most 64 characters' });
              invoiceNumber = value || null;
            } else if (part.type === 'file' && part.fieldname === 'file') {
              file = await part.toBuffer();
              if (part.file.truncated) throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(INVOICE_FILE_MAX_BYTES) });
            } else if (part.type === 'file') part.file.resume();
          }
        } catch (e) {
          if (isAppError(e) || (e as { code?: string }).code?.startsWith('FST_')) throw e;
          throw new AppError('VALIDATION_FAILED', { field: 'body', rule: 'malformed multipart body' }, { cause: e });
        }
        if (!file) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
        const operator = operatorOf(request);
        const { before, after } = await deps.invoices.issue(request.params.id, operator.accountId, file, invoiceNumber);
        await deps.audit.record(
          auditFrom(
            request,
            'invoice.issue',
            { type: 'invoice', id: after.id },
            {
              before: summary(before),
              after: { ...summary(after), order_id: after.order_id, file_bytes: file.length },
            },
          ),
        );
        return invoiceView(after, adminInvoiceFileUrl(after.id));
      },
    );

    app.post(
      '/admin/api/invoices/:id/reject',
      {
        config: { auth: 'operator', permission: 'invoices.manage' },
        schema: {
          tags,
          summary: 'Reject a waiting 发票 request, with the reason the user is mailed (they may correct it and ask again)',
          description: 'Audited as `invoice.reject`.',
          params,
          body: InvoiceRejectRequest,
          response: { 200: InvoiceSchema, ...errors },
        },
      },
      async (request) => {
        const operator = operatorOf(request);
        const { before, after } = await deps.invoices.reject(request.params.id, operator.accountId, request.body.reason);
        await deps.audit.record(
          auditFrom(
            request,
            'invoice.reject',
            { type: 'invoice', id: after.id },
            {
              before: summary(before),
              after: summary(after),
              reason: request.body.reason,
            },
          ),
        );
        return invoiceView(after, adminInvoiceFileUrl(after.id));
      },
    );
  };
}
