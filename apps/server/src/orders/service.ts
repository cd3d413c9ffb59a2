import type { Currency } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { randomToken } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import { lockAccount } from '../platform/db/locks.js';
import type { ProductEntry } from './products.js';
import { refundFigures, type RefundFigures } from './refund.js';
import { OrderLifecycle, type Executor, type OrderRow } from './lifecycle.js';

export { orderView, type OrderRow, type OrdersOptions, type PaidNotice, type SettleOutcome } from './lifecycle.js';

/** Ledger kinds that are not spending: everything else (holds, their settlement and release) is. */
const NOT_SPENDING = ['grant', 'purchase', 'refund'];
/** A refund command's claim on an order older than this is taken to have died, and another may take over. */
export const REFUND_CLAIM_MINUTES = 10;

export interface RefundResult extends RefundFigures {
  order: OrderRow;
  /** The currency of `amount`: the paying attempt's. */
  currency: string;
  balance: number;
  /** The provider's refund id (null when there was no money to return). */
  refundRef: string | null;
}

/** The money of a refund, for the provider the order was paid with. */
export interface MoneyBack {
  orderId: string;
  method: string;
  /** The payment attempt that settled the order (our reference at the provider), when there is one. */
  paymentId: string | null;
  /** The provider's id of that payment (Checkout Session, trade_no, transaction_id). */
  providerRef: string | null;
  /** Minor units to return, in `currency`. */
  amount: number;
  /** What the payment took, in `currency`. */
  total: number;
  currency: string;
}

/** Orders from creation to payment, expiry and refund; credits move through the ledger only. */
export class OrdersService extends OrderLifecycle {
  /**
   * Refunds a successful order once, in three steps, so no database lock is held while a provider answers:
   *
   * 1. one transaction claims the order (a conditional update: successful, not refunded, no other command's claim
   *    younger than REFUND_CLAIM_MINUTES), locks the account, counts what was used since payment, takes the credits
   *    the order left unused off the balance (the `refund` record) and prices the money from what it took, in the
   *    paying attempt's currency; so the credits cannot be spent while the provider answers, and the money is for
   *    credits that are gone;
   * 2. the money goes back through `returnMoney` (the provider the order was paid with, the order id as the refund's
   *    idempotency key, so asking again never returns the money twice);
   * 3. one transaction sets `refunded_at` (conditional on the claim) and keeps the provider's refund id.
   *
   * A provider that fails gives the claim up and the credits back (a second, positive `refund` record), so the order
   * stays unrefunded and a retry starts over. A command that takes over a stale claim whose credits were already
   * taken returns the money that claim priced, under the same idempotency key.
   */
  async refund(
    orderId: string,
    returnMoney?: (money: MoneyBack) => Promise<string>,
    options: { expectedAmount?: number } = {},
  ): Promise<RefundResult> {
    const claim = randomToken(16);
    // Read before the transaction: a look at the catalogue's version inside it would wait on SQLite's one connection.
    const basic = (await this.products.current()).basic;
    const stale = new Date(Date.now() - REFUND_CLAIM_MINUTES * 60_000).toISOString();
    const planned = await this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const order = await trx
        .updateTable('orders')
        .set({ refund_claim: claim, refund_claimed_at: now })
        .where('id', '=', orderId)
        .where('status', '=', 'successful')
        .where('refunded_at', 'is', null)
        .where((eb) => eb.or([eb('refund_claim', 'is', null), eb('refund_claimed_at', '<', stale)]))
        .returningAll()
        .executeTakeFirst();
      if (!order) {
        const existing = await this.find(orderId, trx);
        if (!existing) throw new AppError('NOT_FOUND');
        throw new AppError('ORDER_NOT_PAYABLE');
      }
      // No spending of the account commits between the count of what was used and the deduction below.
      await lockAccount(trx, order.account_id);
      const { figures: priced, payment, currency, paid, balance: balanceNow } = await this.priceRefund(trx, order, now, basic);
      let figures = priced;
      let balance = balanceNow;
      // The console confirms the amount it previewed: anything spent since changes it, and the operator sees it again.
      if (options.expectedAmount !== undefined && order.refund_amount === null && figures.amount !== options.expectedAmount) {
        throw new AppError('VALIDATION_FAILED', {
          field: 'expected_amount',
          rule: `the refund is now ${figures.amount} ${currency}: preview it again`,
        });
      }
      if (order.refund_credits !== null && order.refund_amount !== null) {
        // A stale claim that already took its credits (its command died): those credits and that money stand.
        figures = { ...figures, deducted: Number(order.refund_credits), amount: Number(order.refund_amount) };
      } else {
        // Recorded even when nothing is left to deduct, so the ledger shows every refund.
        balance = await this.credits.refund(trx, order.account_id, figures.deducted, order.id);
        await trx
          .updateTable('orders')
          .set({ refund_credits: figures.deducted, refund_amount: figures.amount, refund_currency: currency })
          .where('id', '=', order.id)
          .execute();
      }
      const money: MoneyBack = {
        orderId: order.id,
        method: payment?.method ?? order.method ?? 'sandbox',
        paymentId: payment?.id ?? null,
        providerRef: payment?.provider_ref ?? order.provider_ref,
        amount: figures.amount,
        total: paid,
        currency,
      };
      return { order, figures, money, balance };
    });
    const { order, figures, money } = planned;
    let refundRef: string | null = null;
    try {
      if (figures.amount > 0 && returnMoney) refundRef = await returnMoney(money);
    } catch (e) {
      await this.giveBack(order.id, order.account_id, claim, figures.deducted);
      throw e;
    }
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const updated = await trx
        .updateTable('orders')
        .set({ refunded_at: now, updated_at: now, refund_claim: null, refund_claimed_at: null, refund_ref: refundRef })
        .where('id', '=', order.id)
        .where('refund_claim', '=', claim)
        .where('refunded_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      // Another command took over a claim it judged stale and finished first: its refund stands, this one records nothing.
      if (!updated) throw new AppError('ORDER_NOT_PAYABLE');
      return { ...figures, order: updated, currency: money.currency, balance: planned.balance, refundRef };
    });
  }

  /**
   * What a refund of `order` would give back now: the figures `refund` computes in its claim (the same reads, the same
   * rule), so the console's preview shows exactly what a refund made at once returns.
   */
  private async priceRefund(trx: Executor, order: OrderRow, now: string, basic: ProductEntry) {
    const account = await trx
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', order.account_id)
      .executeTakeFirstOrThrow();
    const spent = await trx
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('total'))
      .where('account_id', '=', order.account_id)
      .where('created_at', '>=', order.paid_at ?? now)
      .where('kind', 'not in', NOT_SPENDING)
      .executeTakeFirstOrThrow();
    // The attempt that paid: its amount and currency are what the payer gave (CNY for a USD order via Alipay).
    const payment = await trx
      .selectFrom('payments')
      .select(['id', 'method', 'amount', 'currency', 'provider_ref'])
      .where('order_id', '=', order.id)
      .where('status', '=', 'paid')
      .executeTakeFirst();
    const currency = (payment?.currency ?? order.currency) as Currency;
    const paid = payment ? Number(payment.amount) : Number(order.amount);
    const balance = Number(account.credits);
    const figures = refundFigures({
      orderCredits: Number(order.credits),
      orderAmount: paid,
      used: -Number(spent.total),
      basicCredits: basic.credits,
      basicPrice: basic.prices[currency],
      balance,
    });
    return { figures, payment, currency, paid, balance };
  }

  /** The refund `refund` would make now, changing nothing; ORDER_NOT_PAYABLE when the order cannot be refunded. */
  async refundPreview(orderId: string): Promise<RefundFigures & { currency: string; total: number; balance: number }> {
    const order = await this.find(orderId);
    if (!order) throw new AppError('NOT_FOUND');
    if (order.status !== 'successful' || order.refunded_at !== null) throw new AppError('ORDER_NOT_PAYABLE');
    const { figures, currency, paid, balance } = await this.priceRefund(
      this.db,
      order,
      nowIso(),
      (await this.products.current()).basic,
    );
    return { ...figures, currency, total: paid, balance };
  }

  /** The provider did not return the money: the claim is given up and the credits it took come back, as a record. */
  private async giveBack(orderId: string, accountId: string, claim: string, credits: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const dropped = await trx
        .updateTable('orders')
        .set({ refund_claim: null, refund_claimed_at: null, refund_credits: null, refund_amount: null, refund_currency: null })
        .where('id', '=', orderId)
        .where('refund_claim', '=', claim)
        .where('refunded_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      if (dropped && credits > 0) await this.credits.refundReturned(trx, accountId, credits, orderId);
    });
  }
}
