import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Currency, MessageLocale, Order, OrderStatus, PaymentMethod, ProductKind } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Database, OrdersTable } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';
import { lockAccount } from '../platform/db/locks.js';
import type { CreditsService } from '../credits/service.js';
import type { CatalogueSource } from './products.js';
import { currencyFor } from './products.js';

export type OrderRow = Selectable<OrdersTable>;
export type Executor = Kysely<Database> | Transaction<Database>;

/** Statuses a verified payment may still turn into `successful`: money was taken, so it is credited. */
const SETTLEABLE: OrderStatus[] = ['pending_payment', 'expired', 'failed'];
export interface PaidNotice {
  orderId: string;
  /** The payment attempt the provider reported. */
  paymentId: string;
  method: PaymentMethod;
  amount: number;
  currency: Currency;
  providerRef: string;
}

/** applied: this payment settled the order; already: a replay of what settled it; duplicate: a second, distinct payment. */
export type SettleOutcome = 'applied' | 'already' | 'duplicate';

export function orderView(row: OrderRow): Order {
  return {
    id: row.id,
    product: row.product_id,
    product_kind: row.product_kind as ProductKind,
    plan: row.plan as Order['plan'],
    credits: Number(row.credits),
    amount: Number(row.amount),
    currency: row.currency as Currency,
    status: row.status as OrderStatus,
    method: row.method as PaymentMethod | null,
    created_at: row.created_at,
    paid_at: row.paid_at,
    expires_at: row.expires_at,
    refunded_at: row.refunded_at,
  };
}

export interface OrdersOptions {
  db: Kysely<Database>;
  credits: CreditsService;
  /** The products on sale (the catalogue table, seeded from products.json). */
  products: CatalogueSource;
  /** Minutes an unpaid order stays open before it expires. */
  ttlMinutes: number;
  /** Unpaid orders one account may hold open at once; 20 when left out. */
  pendingLimit?: number;
}

/** Orders from creation to payment and expiry (OrdersService's first part; refunds are in service.ts). */
export class OrderLifecycle {
  readonly products: CatalogueSource;
  protected readonly db: Kysely<Database>;
  protected readonly credits: CreditsService;
  protected readonly ttlMinutes: number;
  protected readonly pendingLimit: number;

  constructor(options: OrdersOptions) {
    this.db = options.db;
    this.credits = options.credits;
    this.products = options.products;
    this.ttlMinutes = options.ttlMinutes;
    this.pendingLimit = options.pendingLimit ?? 20;
  }

  async create(accountId: string, productId: string, locale: MessageLocale): Promise<OrderRow> {
    const account = await this.db.selectFrom('accounts').select(['anonymous']).where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new AppError('NOT_FOUND');
    // A purchase belongs to a mailbox that can sign in again: an anonymous account lives in one browser's storage.
    if (account.anonymous === 1) throw new AppError('UNAUTHENTICATED');
    const product = (await this.products.current()).get(productId);
    if (!product || product.hidden)
      throw new AppError('VALIDATION_FAILED', { field: 'product', rule: 'must be a product id from /products' });
    if (!product.purchasable)
      throw new AppError('VALIDATION_FAILED', { field: 'product', rule: 'the free plan is not for sale' });
    const now = new Date();
    const currency = currencyFor(locale);
    const row: OrderRow = {
      id: newId('order'),
      account_id: accountId,
      product_id: product.id,
      product_kind: product.kind,
      plan: product.plan,
      vip_level: product.vipLevel,
      period_days: product.periodDays,
      credits: product.credits,
      amount: product.prices[currency],
      currency,
      prices: JSON.stringify(product.prices),
      status: 'pending_payment',
      method: null,
      provider_ref: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.ttlMinutes * 60_000).toISOString(),
      paid_at: null,
      refunded_at: null,
      refund_credits: null,
      refund_amount: null,
      refund_ref: null,
      refund_currency: null,
      refund_claim: null,
      refund_claimed_at: null,
      updated_at: now.toISOString(),
    };
    // Orders cost nothing to make: a cap on those awaiting payment keeps one account from filling the table. Counted
    // with the account row locked, in the transaction that inserts, so parallel requests cannot all pass one count.
    await this.db.transaction().execute(async (trx) => {
      if (!(await lockAccount(trx, accountId))) throw new AppError('NOT_FOUND');
      const pending = await trx
        .selectFrom('orders')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('expires_at').as('first')])
        .where('account_id', '=', accountId)
        .where('status', '=', 'pending_payment')
        .where('expires_at', '>', now.toISOString())
        .executeTakeFirstOrThrow();
      if (Number(pending.n) >= this.pendingLimit) {
        const seconds = Math.max(1, Math.ceil((Date.parse(String(pending.first)) - now.getTime()) / 1000));
        throw new AppError('RATE_LIMITED', { seconds }, { headers: { 'retry-after': String(seconds) } });
      }
      await trx.insertInto('orders').values(row).execute();
    });
    return row;
  }

  async list(accountId: string, start: number, limit: number): Promise<{ items: OrderRow[]; total: number }> {
    const [items, count] = await Promise.all([
      this.db
        .selectFrom('orders')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(start)
        .limit(limit)
        .execute(),
      this.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  /** The caller's order; another account's answers NOT_FOUND exactly as a missing one. */
  async get(orderId: string, accountId: string): Promise<OrderRow> {
    const row = await this.find(orderId);
    if (!row || row.account_id !== accountId) throw new AppError('NOT_FOUND');
    return row;
  }

  async find(orderId: string, trx: Executor = this.db): Promise<OrderRow | null> {
    return (await trx.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst()) ?? null;
  }

  /** The order's price in `currency`, from the prices it was made with. */
  priceIn(order: OrderRow, currency: Currency): number | null {
    if (order.currency === currency) return Number(order.amount);
    const prices = JSON.parse(order.prices) as Record<string, unknown>;
    const price = Object.hasOwn(prices, currency) ? prices[currency] : undefined;
    return typeof price === 'number' && price > 0 ? price : null;
  }

  /** Marks a pending order as being paid by `method` (shown in the order until it is settled). */
  async startPayment(orderId: string, method: PaymentMethod): Promise<boolean> {
    const row = await this.db
      .updateTable('orders')
      .set({ method, updated_at: nowIso() })
      .where('id', '=', orderId)
      .where('status', '=', 'pending_payment')
      .where('expires_at', '>', nowIso())
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Applies a verified payment once: the conditional UPDATE to `successful` decides who applies it, and the
   * credits, the vip level and its expiry change in the same transaction. A payment that arrives after the
   * order expired or failed is still credited: the payer's money was taken.
   */
  async settlePaid(notice: PaidNotice): Promise<SettleOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const now = new Date();
      const order = await trx
        .updateTable('orders')
        .set({
          status: 'successful',
          paid_at: now.toISOString(),
          method: notice.method,
          amount: notice.amount,
          currency: notice.currency,
          provider_ref: notice.providerRef,
          updated_at: now.toISOString(),
        })
        .where('id', '=', notice.orderId)
        .where('status', 'in', SETTLEABLE)
        .returningAll()
        .executeTakeFirst();
      if (!order) {
        // Another payment settled the order. If this attempt was never paid before, the payer paid twice: it is
        // recorded for the operator to return, never credited a second time.
        const second = await trx
          .updateTable('payments')
          .set({ status: 'duplicate', paid_at: now.toISOString(), provider_ref: notice.providerRef })
          .where('id', '=', notice.paymentId)
          .where('status', 'in', ['started', 'closed', 'failed'])
          .returning('id')
          .executeTakeFirst();
        return second ? 'duplicate' : 'already';
      }
      await trx
        .updateTable('payments')
        .set({ status: 'paid', paid_at: now.toISOString(), provider_ref: notice.providerRef })
        .where('id', '=', notice.paymentId)
        .execute();
      // The purchase entry locks the account row first, so the vip read below sees any other settlement's write.
      await this.credits.purchase(trx, order.account_id, Number(order.credits), order.id);
      if (order.product_kind === 'plan' && order.vip_level && order.period_days)
        await this.grantPlan(trx, order.account_id, order.vip_level, Number(order.period_days), now);
      return 'applied';
    });
  }

  /**
   * Puts the account on `vipLevel` for `periodDays` more days: from the current expiry while a plan is active, else
   * from now; a higher plan still active keeps its level (the days are added). Call it after a ledger entry of the
   * same transaction, which locked the account row, so two grants never read the same expiry.
   */
  async grantPlan(trx: Transaction<Database>, accountId: string, vipLevel: string, periodDays: number, now: Date): Promise<void> {
    // Inside the caller's transaction: the copy in hand, never a query on another connection (SQLite has one).
    const products = this.products.latest();
    const account = await trx
      .selectFrom('accounts')
      .select(['vip_level', 'vip_expire'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const current = account.vip_expire ? new Date(account.vip_expire) : null;
    const active = current !== null && current > now;
    const from = active ? current : now;
    const expire = new Date(from.getTime() + periodDays * 86_400_000).toISOString();
    const keepLevel = active && products.rankOf(account.vip_level) > products.rankOf(vipLevel);
    await trx
      .updateTable('accounts')
      .set({ vip_level: keepLevel ? account.vip_level : vipLevel, vip_expire: expire, updated_at: now.toISOString() })
      .where('id', '=', accountId)
      .execute();
  }

  /** A provider said the payment failed: only a pending order becomes `failed`. */
  async markFailed(orderId: string): Promise<boolean> {
    const row = await this.db
      .updateTable('orders')
      .set({ status: 'failed', updated_at: nowIso() })
      .where('id', '=', orderId)
      .where('status', '=', 'pending_payment')
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** One conditional UPDATE: safe however many server processes sweep at once. */
  async sweepExpired(now = new Date()): Promise<number> {
    const rows = await this.db
      .updateTable('orders')
      .set({ status: 'expired', updated_at: now.toISOString() })
      .where('status', '=', 'pending_payment')
      .where('expires_at', '<=', now.toISOString())
      .returning('id')
      .execute();
    return rows.length;
  }
}
