import { z } from 'zod';

export const PLANS = ['free', 'monthly', 'quarterly', 'half_year', 'annual'] as const;
export type Plan = (typeof PLANS)[number];
export const PRODUCT_KINDS = ['plan', 'credits'] as const;
export type ProductKind = (typeof PRODUCT_KINDS)[number];
export const ORDER_STATUSES = ['pending_payment', 'successful', 'failed', 'expired'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const PAYMENT_METHODS = ['alipay', 'wechat', 'card', 'sandbox'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const CURRENCIES = ['CNY', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Money in minor units (fen, cents) with its ISO currency. */
export const MoneySchema = z.object({ amount: z.number().int(), currency: z.enum(CURRENCIES) }).meta({ id: 'Money' });

export const ProductSchema = z
  .object({
    id: z.string(),
    kind: z.enum(PRODUCT_KINDS),
    plan: z.enum(PLANS).nullable().describe('the plan a `plan` product is; null for credit packs'),
    name: z.string().describe("in the request's language"),
    description: z.string().describe("in the request's language"),
    price: MoneySchema.describe("in the currency of the request's language: CNY for zh-CN and zh-TW, else USD"),
    prices: z.array(MoneySchema).describe('every currency the product is sold in'),
    credits: z.number().int().describe('credits granted by one purchase'),
    period_days: z.number().int().nullable().describe('how long the plan lasts; null for credit packs'),
    vip_level: z.string().nullable(),
    privileges: z.object({
      max_text_length: z.number().int(),
      own_voices: z.number().int(),
      api_access: z.boolean(),
    }),
    purchasable: z.boolean().describe('false for the free plan, which is granted, not sold'),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof ProductSchema>;

export const ProductsQuery = z.object({ kind: z.enum(PRODUCT_KINDS).optional() });
export const ProductsResponse = z.object({
  items: z.array(ProductSchema),
  payment_methods: z.array(z.enum(PAYMENT_METHODS)).describe('the payment methods this server is configured for'),
});

export const OrderSchema = z
  .object({
    id: z.string(),
    product: z.string(),
    product_kind: z.enum(PRODUCT_KINDS),
    plan: z.enum(PLANS).nullable(),
    credits: z.number().int(),
    amount: z.number().int().describe('minor units'),
    currency: z.enum(CURRENCIES),
    status: z.enum(ORDER_STATUSES),
    method: z.enum(PAYMENT_METHODS).nullable(),
    created_at: z.string(),
    paid_at: z.string().nullable(),
    expires_at: z.string(),
    refunded_at: z.string().nullable().describe('set once an operator refunded the order; the status stays successful'),
    invoice_status: z
      .enum(['requested', 'issued', 'rejected'])
      .nullable()
      .optional()
      .describe('the 发票 requested on the order, if any (in the order list)'),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof OrderSchema>;

export const CreateOrderRequest = z.object({ product: z.string().min(1).max(64) });
export const OrdersQuery = z.object({
  start: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export const OrdersResponse = z.object({ items: z.array(OrderSchema), total: z.number().int() });

export const PaymentRequest = z.object({
  pay_platform: z.literal('web').default('web'),
  return_url: z.string().min(1).max(2048).describe('where the checkout returns: a relative path or a URL of this origin'),
  pay_method: z.string().max(32).optional().describe('a sub-method a provider may offer; ignored by the others'),
});
export const PaymentResponse = z
  .object({
    pay_url: z.string().optional().describe('open this page to pay'),
    qr_code: z.string().optional().describe('encode this text as a QR code for the payer to scan'),
  })
  .meta({ id: 'Payment' });
export const PaymentMethodsResponse = z.object({ items: z.array(z.enum(PAYMENT_METHODS)) });

export const SandboxCompleteRequest = z.object({
  token: z.string().min(1).max(256),
  outcome: z.enum(['success', 'fail']),
});
