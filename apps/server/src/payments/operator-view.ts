import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { AdminOrderSchema, AdminOrdersQuery, OrderEventSchema } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { orderView, type OrderRow } from '../orders/service.js';
import type { OrderEventRow } from './events.js';

type AdminOrder = z.infer<typeof AdminOrderSchema>;
type Filters = z.infer<typeof AdminOrdersQuery>;

export function adminOrderView(row: OrderRow, email: string | null): AdminOrder {
  return {
    ...orderView(row),
    account_id: row.account_id,
    account_email: email,
    provider_ref: row.provider_ref,
    refund_amount: row.refund_amount === null ? null : Number(row.refund_amount),
    refund_currency: row.refund_currency,
    refund_credits: row.refund_credits === null ? null : Number(row.refund_credits),
    refund_ref: row.refund_ref,
  };
}

export function eventView(row: OrderEventRow): z.infer<typeof OrderEventSchema> {
  let detail: Record<string, unknown> | null = null;
  try {
    detail = row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : null;
  } catch {
    detail = { text: row.detail };
  }
  return {
    ...row,
    kind: row.kind as 'notification' | 'query' | 'sandbox',
    verification: row.verification as 'verified' | 'forged',
    amount: row.amount === null ? null : Number(row.amount),
    detail,
  };
}

/** The end of a `to` filter: a date means to the end of that day. */
function upper(to: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(to)
    ? new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString()
    : new Date(to).toISOString();
}

/** Orders for the console: filtered by status, method, currency, dates and an id or email, paged on the server. */
export async function listOrders(db: Kysely<Database>, f: Filters) {
  let q = db.selectFrom('orders as o').leftJoin('accounts as a', 'a.id', 'o.account_id');
  if (f.status === 'refunded') q = q.where('o.status', '=', 'successful').where('o.refunded_at', 'is not', null);
  else if (f.status) q = q.where('o.status', '=', f.status);
  if (f.method) q = q.where('o.method', '=', f.method);
  if (f.currency) q = q.where('o.currency', '=', f.currency);
  if (f.since) q = q.where('o.created_at', '>=', new Date(f.since).toISOString());
  if (f.until) q = q.where('o.created_at', '<', upper(f.until));
  if (f.q) {
    const term = f.q;
    if (term.includes('@')) q = q.where('a.email', '=', term.toLowerCase());
    else q = q.where((eb) => eb.or([eb('o.id', '=', term), eb('o.account_id', '=', term)]));
  }
  const [rows, count] = await Promise.all([
    q
      .selectAll('o')
      .select('a.email as account_email')
      .orderBy('o.created_at', 'desc')
      .orderBy('o.id', 'desc')
      .offset((f.page - 1) * f.page_size)
      .limit(f.page_size)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map(({ account_email, ...row }) => adminOrderView(row as OrderRow, account_email)),
    total: Number(count.n),
    page: f.page,
    page_size: f.page_size,
  };
}

export async function emailOf(db: Kysely<Database>, accountId: string): Promise<string | null> {
  return (await db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst())?.email ?? null;
}

export async function paymentsOf(db: Kysely<Database>, orderId: string) {
  const rows = await db.selectFrom('payments').selectAll().where('order_id', '=', orderId).orderBy('created_at').execute();
  return rows.map((p) => ({
    id: p.id,
    method: p.method,
    amount: Number(p.amount),
    currency: p.currency,
    status: p.status,
    provider_ref: p.provider_ref,
    provider_state: p.provider_state,
    provider_checked_at: p.provider_checked_at,
    created_at: p.created_at,
    paid_at: p.paid_at,
  }));
}
