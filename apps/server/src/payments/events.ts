import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, OrderEventsTable } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import type { ProviderState } from './provider.js';

export type OrderEventRow = Selectable<OrderEventsTable>;
type Executor = Kysely<Database> | Transaction<Database>;

/** notification: a provider's webhook; query: an operator asked the provider; sandbox: the sandbox page's buttons. */
export type OrderEventKind = 'notification' | 'query' | 'sandbox';

export interface OrderEventInput {
  orderId?: string | null;
  paymentId?: string | null;
  method: string;
  kind: OrderEventKind;
  /** Whether the signature (of the notification, or of the provider's answer) checked out. */
  verification: 'verified' | 'forged';
  outcome: string;
  providerState?: ProviderState | null;
  amount?: number | null;
  currency?: string | null;
  providerRef?: string | null;
  detail?: Record<string, unknown> | null;
  operatorId?: string | null;
}

export interface EventFilters {
  method?: string | undefined;
  verification?: string | undefined;
  kind?: string | undefined;
}

/** The record of what providers told us about payments: every notification received, and every answer to a query. */
export class OrderEvents {
  constructor(private readonly db: Kysely<Database>) {}

  async record(event: OrderEventInput, trx: Executor = this.db): Promise<OrderEventRow> {
    const row: OrderEventRow = {
      id: newId('event'),
      order_id: event.orderId ?? null,
      payment_id: event.paymentId ?? null,
      method: event.method,
      kind: event.kind,
      verification: event.verification,
      outcome: event.outcome,
      provider_state: event.providerState ?? null,
      amount: event.amount ?? null,
      currency: event.currency ?? null,
      provider_ref: event.providerRef ?? null,
      // Kept short: a rejected notification's reason, never the whole body.
      detail: event.detail ? JSON.stringify(event.detail).slice(0, 2000) : null,
      operator_id: event.operatorId ?? null,
      created_at: new Date().toISOString(),
    };
    await trx.insertInto('order_events').values(row).execute();
    // The provider's last word on the attempt, which the reconciliation compares with ours.
    if (event.paymentId && event.providerState && event.verification === 'verified') {
      await trx
        .updateTable('payments')
        .set({ provider_state: event.providerState, provider_checked_at: row.created_at })
        .where('id', '=', event.paymentId)
        .execute();
    }
    return row;
  }

  forOrder(orderId: string): Promise<OrderEventRow[]> {
    return this.db
      .selectFrom('order_events')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(500)
      .execute();
  }

  /** Every event, newest first (notifications tied to no order included: forged ones, unknown payments). */
  async list(filters: EventFilters, page: number, pageSize: number): Promise<{ items: OrderEventRow[]; total: number }> {
    let q = this.db.selectFrom('order_events');
    if (filters.method) q = q.where('method', '=', filters.method);
    if (filters.verification) q = q.where('verification', '=', filters.verification);
    if (filters.kind) q = q.where('kind', '=', filters.kind);
    const [items, count] = await Promise.all([
      q
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset((page - 1) * pageSize)
        .limit(pageSize)
        .execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }
}
