import type {
  AdminInvoice,
  AdminInvoicesPage,
  AdminOrderDetailView,
  AdminOrdersPage,
  AdminRefundResult,
  Invoice,
  ReconciliationPage,
  RefundPreview,
  RequeryResult,
} from '@polyvox/contracts';
import { http } from '../api/client';

type Query = Record<string, string | number | undefined>;

/** The console's calls for orders, refunds, the reconciliation and 发票 requests (`/admin/api/…`). */
export const ordersApi = {
  orders: (query: Query) => http<AdminOrdersPage>('GET', '/admin/api/orders', { query }),
  order: (id: string) => http<AdminOrderDetailView>('GET', `/admin/api/orders/${encodeURIComponent(id)}`),
  refundPreview: (id: string) => http<RefundPreview>('GET', `/admin/api/orders/${encodeURIComponent(id)}/refund-preview`),
  refund: (id: string, body: { reason: string; expected_amount: number }) =>
    http<AdminRefundResult>('POST', `/admin/api/orders/${encodeURIComponent(id)}/refund`, { json: body }),
  reconciliation: (query: Query) => http<ReconciliationPage>('GET', '/admin/api/reconciliation', { query }),
  requery: (id: string, reason?: string) =>
    http<RequeryResult>('POST', `/admin/api/orders/${encodeURIComponent(id)}/requery`, { json: reason ? { reason } : {} }),
  invoices: (query: Query) => http<AdminInvoicesPage>('GET', '/admin/api/invoices', { query }),
  invoiceFile: (invoice: Pick<AdminInvoice, 'id'>) =>
    http<Response>('GET', `/admin/api/invoices/${encodeURIComponent(invoice.id)}/file`, { raw: true }),
  issue: (id: string, file: File, invoiceNumber: string) => {
    const form = new FormData();
    if (invoiceNumber.trim()) form.append('invoice_number', invoiceNumber.trim());
    form.append('file', file);
    return http<Invoice>('POST', `/admin/api/invoices/${encodeURIComponent(id)}/issue`, { form });
  },
  reject: (id: string, reason: string) =>
    http<Invoice>('POST', `/admin/api/invoices/${encodeURIComponent(id)}/reject`, { json: { reason } }),
};
