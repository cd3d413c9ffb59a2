import { z } from 'zod';
import { CURRENCIES, ORDER_STATUSES, OrderSchema, PAYMENT_METHODS } from './orders.js';

/** 发票 types: 普通发票 (normal) and 增值税专用发票 (special, which needs the buyer's tax number). */
export const INVOICE_TYPES = ['normal', 'special'] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];
export const INVOICE_STATUSES = ['requested', 'issued', 'rejected'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** A taxpayer number: the 18-character unified social credit code, or an older 15- or 20-character number. */
export const TAX_NUMBER = /^[0-9A-Z]{15,20}$/;

export const InvoiceRequestBody = z.object({
  type: z.enum(INVOICE_TYPES),
  title: z.string().trim().min(1).max(100).describe('the buyer named on the invoice (a company or a person)'),
  tax_number: z
    .string()
    .trim()
    .toUpperCase()
    .regex(TAX_NUMBER, 'must be 15 to 20 letters and digits')
    .optional()
    .describe("the buyer's taxpayer number; required for `special`"),
  email: z.email().max(254).describe('where the invoice is mailed'),
});

export const InvoiceSchema = z
  .object({
    id: z.string(),
    order_id: z.string(),
    type: z.enum(INVOICE_TYPES),
    title: z.string(),
    tax_number: z.string().nullable(),
    email: z.string(),
    status: z.enum(INVOICE_STATUSES),
    invoice_number: z.string().nullable(),
    note: z.string().nullable().describe('why a request was rejected'),
    created_at: z.string(),
    handled_at: z.string().nullable(),
    file_url: z.string().nullable().describe('the issued invoice (PDF), once issued'),
  })
  .meta({ id: 'Invoice' });
export type Invoice = z.infer<typeof InvoiceSchema>;

// ------------------------------------------------------------------ operator routes (/admin/api/…)

const page = {
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
};

export const AdminOrdersQuery = z.object({
  status: z
    .enum([...ORDER_STATUSES, 'refunded'])
    .optional()
    .describe('`refunded`: successful orders refunded since'),
  method: z.enum(PAYMENT_METHODS).optional(),
  currency: z.enum(CURRENCIES).optional(),
  since: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().describe('created at or after (ISO date or time)'),
  until: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().describe('created before (a date: to the end of that day)'),
  q: z.string().trim().max(254).optional().describe('an order id, an account id or an email'),
  ...page,
});

export const AdminOrderSchema = OrderSchema.extend({
  account_id: z.string(),
  account_email: z.string().nullable(),
  provider_ref: z.string().nullable(),
  refund_amount: z.number().int().nullable(),
  refund_currency: z.string().nullable(),
  refund_credits: z.number().int().nullable(),
  refund_ref: z.string().nullable(),
}).meta({ id: 'AdminOrder' });

export const AdminOrdersResponse = z.object({
  items: z.array(AdminOrderSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

export const OrderEventSchema = z
  .object({
    id: z.string(),
    order_id: z.string().nullable(),
    payment_id: z.string().nullable(),
    method: z.string(),
    kind: z.enum(['notification', 'query', 'sandbox']),
    verification: z.enum(['verified', 'forged']).describe("whether the provider's signature checked out"),
    outcome: z
      .string()
      .describe(
        'applied, already (a replay), duplicate (a second payment), failed, ignored, rejected (amount differs), unknown_payment, error; for queries: consistent, mismatch',
      ),
    provider_state: z.string().nullable(),
    amount: z.number().int().nullable(),
    currency: z.string().nullable(),
    provider_ref: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
    operator_id: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'OrderEvent' });

export const AdminPaymentSchema = z.object({
  id: z.string(),
  method: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.string(),
  provider_ref: z.string().nullable(),
  provider_state: z.string().nullable(),
  provider_checked_at: z.string().nullable(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
});

export const AdminOrderDetail = z.object({
  order: AdminOrderSchema,
  payments: z.array(AdminPaymentSchema),
  events: z.array(OrderEventSchema),
  invoice: InvoiceSchema.nullable(),
});

export const EventsQuery = z.object({
  method: z.enum(PAYMENT_METHODS).optional(),
  verification: z.enum(['verified', 'forged']).optional(),
  kind: z.enum(['notification', 'query', 'sandbox']).optional(),
  ...page,
});
export const EventsResponse = z.object({ items: z.array(OrderEventSchema), total: z.number().int() });

export const RefundPreviewSchema = z
  .object({
    order_id: z.string(),
    used: z.number().int().describe('credits spent since the order was paid'),
    used_at_basic: z.number().int().describe("those credits priced at the basic plan's price, in this order's credits"),
    refundable_credits: z.number().int(),
    deducted: z.number().int().describe('credits the refund takes off the balance'),
    amount: z.number().int().describe('money returned, in minor units of `currency`'),
    currency: z.string(),
    total: z.number().int().describe('what the payment took'),
    balance: z.number().int().describe('the balance now (before the refund)'),
    method: z.string().nullable(),
  })
  .meta({ id: 'RefundPreview' });

export const Reason = z.string().trim().min(1).max(500);
export const AdminRefundRequest = z.object({
  reason: Reason,
  expected_amount: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('the previewed amount: when the refund would now differ, 400 VALIDATION_FAILED and nothing changes'),
});
export const AdminRefundResponse = z.object({
  order: AdminOrderSchema,
  used: z.number().int(),
  used_at_basic: z.number().int(),
  deducted: z.number().int(),
  amount: z.number().int(),
  currency: z.string(),
  balance: z.number().int(),
  refund_ref: z.string().nullable(),
});

export const RECONCILIATION_KIND_LIST = [
  'paid_not_applied',
  'applied_not_paid',
  'duplicate_payment',
  'refunded_not_recorded',
  'unconfirmed',
] as const;
export const ReconciliationQuery = z.object({ kind: z.enum(RECONCILIATION_KIND_LIST).optional(), ...page });
export const ReconciliationItem = z.object({
  kind: z.enum(RECONCILIATION_KIND_LIST),
  order_id: z.string(),
  account_id: z.string(),
  order_status: z.enum(ORDER_STATUSES),
  refunded_at: z.string().nullable(),
  payment_id: z.string(),
  method: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  payment_status: z.string(),
  provider_state: z.string().nullable(),
  provider_checked_at: z.string().nullable(),
  created_at: z.string(),
});
export const ReconciliationResponse = z.object({
  items: z.array(ReconciliationItem),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export const RequeryRequest = z.object({ reason: Reason.optional() });
export const RequeryResponse = z.object({
  order: AdminOrderSchema,
  answers: z.array(
    z.object({
      payment_id: z.string(),
      method: z.string(),
      provider_state: z.string().nullable(),
      outcome: z.string(),
    }),
  ),
});

export const AdminInvoiceSchema = InvoiceSchema.extend({
  account_id: z.string(),
  account_email: z.string().nullable(),
  order_amount: z.number().int(),
  order_currency: z.string(),
  order_product: z.string(),
  locale: z.string(),
  handled_by: z.string().nullable(),
}).meta({ id: 'AdminInvoice' });
export const AdminInvoicesQuery = z.object({ status: z.enum(INVOICE_STATUSES).optional(), ...page });
export const AdminInvoicesResponse = z.object({
  items: z.array(AdminInvoiceSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export const InvoiceRejectRequest = z.object({ reason: Reason });

export type AdminOrder = z.infer<typeof AdminOrderSchema>;
export type AdminOrdersPage = z.infer<typeof AdminOrdersResponse>;
export type AdminOrderDetailView = z.infer<typeof AdminOrderDetail>;
export type OrderEvent = z.infer<typeof OrderEventSchema>;
export type RefundPreview = z.infer<typeof RefundPreviewSchema>;
export type AdminRefundResult = z.infer<typeof AdminRefundResponse>;
export type ReconciliationPage = z.infer<typeof ReconciliationResponse>;
export type ReconciliationEntry = z.infer<typeof ReconciliationItem>;
export type RequeryResult = z.infer<typeof RequeryResponse>;
export type AdminInvoice = z.infer<typeof AdminInvoiceSchema>;
export type AdminInvoicesPage = z.infer<typeof AdminInvoicesResponse>;
