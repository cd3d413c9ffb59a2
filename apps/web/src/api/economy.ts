import { http } from './client';
import type { QueryValue } from './http';

/**
 * The credits economy as the contract (API.md "Credits, products, orders", "API keys") describes it.
 * Fields the contract leaves to the server (localized names, both prices, the configured methods)
 * are optional here, so the console works with or without them.
 */

export interface Money {
  amount: number;
  currency: string;
}

export type ProductKind = 'plan' | 'credits';
export type PlanName = 'free' | 'monthly' | 'quarterly' | 'half_year' | 'annual';

export interface Product {
  id: string;
  kind: ProductKind;
  plan: PlanName | null;
  name: string;
  price: Money;
  /** Every price of the product, when the server sends them (one per currency). */
  prices?: Money[] | Record<string, number>;
  credits: number;
  period_days: number | null;
  description?: string;
  privileges?: Record<string, unknown>;
  purchasable?: boolean;
  payment_methods?: PaymentMethod[];
}

export interface ProductList {
  items: Product[];
  payment_methods?: PaymentMethod[];
}

export const PAYMENT_METHODS = ['sandbox', 'card', 'alipay', 'wechat'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const ORDER_STATUSES = ['pending_payment', 'successful', 'failed', 'expired'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface Order {
  id: string;
  product: string;
  amount: number;
  currency: string;
  status: OrderStatus | string;
  method: string | null;
  created_at: string;
  paid_at: string | null;
  expires_at: string | null;
  product_kind?: ProductKind;
  plan?: string | null;
  credits?: number;
  refunded_at?: string | null;
  /** The 发票 requested on the order, if any. */
  invoice_status?: InvoiceStatus | null;
}

export const INVOICE_TYPES = ['normal', 'special'] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];
export type InvoiceStatus = 'requested' | 'issued' | 'rejected';

export interface Invoice {
  id: string;
  order_id: string;
  type: InvoiceType;
  title: string;
  tax_number: string | null;
  email: string;
  status: InvoiceStatus;
  invoice_number: string | null;
  note: string | null;
  created_at: string;
  handled_at: string | null;
  file_url: string | null;
}

export interface InvoiceAsk {
  type: InvoiceType;
  title: string;
  tax_number?: string;
  email: string;
}

export interface OrderList {
  items: Order[];
  total: number;
}

export type PaymentAnswer = { pay_url: string; qr_code?: undefined } | { qr_code: string; pay_url?: undefined };

export const RECORD_TYPES = ['preview', 'api', 'text_to_voice', 'clone', 'tts', 'purchase', 'grant', 'refund'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export interface CreditRecord {
  id: string;
  type: RecordType | string;
  amount: number;
  balance_after: number;
  characters: number | null;
  voice_id: string | null;
  api_key_id: string | null;
  order_id: string | null;
  created_at: string;
  /** An operator's grant or deduction: the reason they gave. */
  reason?: string | null;
}

export interface RecordList {
  items: CreditRecord[];
  total: number;
}

export interface RecordFilters {
  type?: string | null;
  from?: string | null;
  to?: string | null;
  api_key?: string | null;
}

export interface DayCredits {
  day: string;
  credits: number;
  calls: number;
}

export interface CurrentStats {
  credits: number;
  calls_today: number;
  credits_today: number;
  calls_total: number;
}

export interface ApiKey {
  id: string;
  name: string;
  limit: number | null;
  used: number;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedKey {
  id: string;
  name: string;
  limit: number | null;
  key: string;
}

export function listProducts(kind?: ProductKind, signal?: AbortSignal): Promise<ProductList> {
  return http('GET', '/products', { query: { kind }, signal });
}

/** The methods the server has configured; undefined when it does not say (then the products' field decides). */
export async function listPaymentMethods(signal?: AbortSignal): Promise<PaymentMethod[] | undefined> {
  try {
    const res = await http<{ items?: unknown[]; methods?: unknown[] } | unknown[]>('GET', '/payments/methods', { signal });
    const raw = Array.isArray(res) ? res : (res.items ?? res.methods ?? []);
    return raw
      .map((m) => (typeof m === 'string' ? m : ((m as { method?: string; id?: string }).method ?? (m as { id?: string }).id)))
      .filter((m): m is PaymentMethod => (PAYMENT_METHODS as readonly (string | undefined)[]).includes(m));
  } catch {
    return undefined;
  }
}

export function createOrder(product: string): Promise<Order> {
  return http('POST', '/accounts/me/orders', { json: { product } });
}

export function payOrder(orderId: string, method: PaymentMethod, returnUrl: string): Promise<PaymentAnswer> {
  return http('POST', `/accounts/me/orders/${encodeURIComponent(orderId)}/payment/${method}`, {
    query: { pf: 'web' },
    json: { pay_platform: 'web', return_url: returnUrl },
  });
}

export function fetchOrder(id: string, signal?: AbortSignal): Promise<Order> {
  return http('GET', `/accounts/me/orders/${encodeURIComponent(id)}`, { signal });
}

export function listOrders(start: number, limit: number, signal?: AbortSignal): Promise<OrderList> {
  return http('GET', '/api/accounts/me/orders', { query: { start, limit }, signal });
}

export function listRecords(page: number, pageSize: number, filters: RecordFilters, signal?: AbortSignal): Promise<RecordList> {
  const query: Record<string, QueryValue> = { page, page_size: pageSize, ...filters };
  return http('GET', '/api/credits/records', { query, signal });
}

export function fetchDayCredits(days: number, signal?: AbortSignal): Promise<{ items: DayCredits[] }> {
  return http('GET', '/api/statistics/day_credits', { query: { days }, signal });
}

export function fetchCurrentStats(signal?: AbortSignal): Promise<CurrentStats> {
  return http('GET', '/api/statistics/current', { signal });
}

export function listApiKeys(signal?: AbortSignal): Promise<{ items: ApiKey[] }> {
  return http('GET', '/api/authorization', { signal });
}

export function createApiKey(name: string, limit: number | null): Promise<CreatedKey> {
  return http('PUT', '/api/authorization', { json: { name, limit } });
}

export function updateApiKey(patch: { id: string; name?: string; limit?: number | null }): Promise<unknown> {
  return http('PATCH', '/api/authorization', { json: patch });
}

export function deleteApiKey(id: string): Promise<void> {
  return http('DELETE', '/api/authorization', { query: { id } });
}

/** What a redemption code gave (POST /api/redeem). */
export interface Redemption {
  credits: number;
  plan: PlanName | null;
  balance: number;
}

export function redeemCode(code: string): Promise<Redemption> {
  return http('POST', '/api/redeem', { json: { code } });
}

/** The receipt of a paid order (a PDF in the console's language). */
export async function fetchReceipt(orderId: string): Promise<Blob> {
  const res = await http<Response>('GET', `/api/accounts/me/orders/${encodeURIComponent(orderId)}/receipt`, { raw: true });
  return res.blob();
}

/** The 发票 requested on an order; null when none was. */
export async function fetchInvoice(orderId: string, signal?: AbortSignal): Promise<Invoice | null> {
  try {
    return await http<Invoice>('GET', `/api/accounts/me/orders/${encodeURIComponent(orderId)}/invoice`, { signal });
  } catch (e) {
    if ((e as { code?: string }).code === 'NOT_FOUND') return null;
    throw e;
  }
}

export function requestInvoice(orderId: string, ask: InvoiceAsk): Promise<Invoice> {
  return http('POST', `/accounts/me/orders/${encodeURIComponent(orderId)}/invoice`, { json: ask });
}

export async function fetchInvoiceFile(orderId: string): Promise<Blob> {
  const res = await http<Response>('GET', `/api/accounts/me/orders/${encodeURIComponent(orderId)}/invoice/file`, { raw: true });
  return res.blob();
}
