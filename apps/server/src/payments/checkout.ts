import type { Kysely, Selectable } from 'kysely';
import { PAYMENT_METHODS, type Currency, type MessageLocale, type PaymentMethod } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Database, PaymentsTable } from '../platform/db/schema.js';
import type { OrdersService, RefundResult, SettleOutcome } from '../orders/service.js';
import type { CheckoutResult, IncomingNotification, NotifyAnswer, PaymentProvider } from './provider.js';
import { OrderEvents } from './events.js';
import { ForgedNotification, RefundFailed } from './provider.js';

export type PaymentRow = Selectable<PaymentsTable>;

export interface NotifyResult {
  answer: NotifyAnswer;
  /** Why a notification changed nothing, for the log; absent when it was applied or rightly ignored. */
  rejected?: { reason: string; [key: string]: unknown };
  applied?: boolean;
  /** Other checkouts of the order that could not be closed after it was paid (the payer could still pay them). */
  unclosed?: { payment_id: string; method: string; error: string }[];
  /** A second, distinct payment for an order another payment already settled: the operator returns it. */
  duplicate?: { order_id: string; payment_id: string; amount: string; provider_ref: string };
}

export const byMethod = (methods: ReadonlyMap<PaymentMethod, PaymentProvider>, method: string): PaymentProvider | null =>
  methods.get(method as PaymentMethod) ?? null;

export interface PaymentsOptions {
  db: Kysely<Database>;
  orders: OrdersService;
  /** The configured providers, by the payment method each one takes. */
  providers: ReadonlyMap<PaymentMethod, PaymentProvider>;
  /** The server secret (the sandbox provider's checkout tokens). */
  secret: string;
  /** The server's public address, for the return and notify URLs given to providers. */
  publicUrl: string;
}

/** Checkouts and what providers report (PaymentsService's first part): start, notify, refund, close the others. */
export class PaymentsCheckout {
  protected readonly db: Kysely<Database>;
  protected readonly orders: OrdersService;
  protected readonly providers: ReadonlyMap<PaymentMethod, PaymentProvider>;
  protected readonly secret: string;
  protected readonly publicUrl: string;
  /** Every notification received and every provider answer, per order. */
  readonly events: OrderEvents;

  constructor(options: PaymentsOptions) {
    this.events = new OrderEvents(options.db);
    this.db = options.db;
    this.orders = options.orders;
    this.providers = options.providers;
    this.secret = options.secret;
    this.publicUrl = options.publicUrl;
  }

  /**
   * Refunds a successful order and returns its money through the provider it was paid with, with the order id
   * as the refund's idempotency key; a provider failure (RefundFailed) leaves the order unrefunded.
   */
  refund(orderId: string, options: { expectedAmount?: number } = {}): Promise<RefundResult> {
    return this.orders.refund(
      orderId,
      async (money) => {
        const provider = byMethod(this.providers, money.method);
        if (!provider) throw new RefundFailed(`${money.method} is not configured here, so its refund cannot be sent`);
        if (!money.paymentId) throw new RefundFailed('the order has no paid payment attempt to refund');
        return provider.refund({
          orderId: money.orderId,
          paymentId: money.paymentId,
          providerRef: money.providerRef,
          amount: money.amount,
          total: money.total,
          currency: money.currency,
        });
      },
      options,
    );
  }

  methods(): PaymentMethod[] {
    return PAYMENT_METHODS.filter((m) => this.providers.has(m));
  }

  async start(
    accountId: string,
    orderId: string,
    method: string,
    returnUrl: string,
    locale: MessageLocale,
  ): Promise<Omit<CheckoutResult, 'providerRef'>> {
    const order = await this.orders.get(orderId, accountId);
    const provider = byMethod(this.providers, method);
    if (!provider) throw new AppError('PAYMENT_METHOD_UNAVAILABLE');
    if (order.status !== 'pending_payment' || new Date(order.expires_at) <= new Date()) throw new AppError('ORDER_NOT_PAYABLE');
    const currency: Currency = provider.currencies.includes(order.currency as Currency)
      ? (order.currency as Currency)
      : provider.currencies[0]!;
    const amount = this.orders.priceIn(order, currency);
    if (amount === null) throw new AppError('PAYMENT_METHOD_UNAVAILABLE');
    const payment: PaymentRow = {
      id: newId('payment'),
      order_id: order.id,
      method: provider.method,
      amount,
      currency,
      return_url: returnUrl,
      provider_ref: null,
      status: 'started',
      paid_at: null,
      created_at: new Date().toISOString(),
      provider_state: null,
      provider_checked_at: null,
    };
    // The attempt is written before the provider hears of it, so its notification always finds it.
    await this.db.insertInto('payments').values(payment).execute();
    if (!(await this.orders.startPayment(order.id, provider.method))) throw new AppError('ORDER_NOT_PAYABLE');
    const product = (await this.orders.products.current()).get(order.product_id);
    let result: CheckoutResult;
    try {
      result = await provider.checkout({
        orderId: order.id,
        paymentId: payment.id,
        amount,
        currency,
        description: product?.name[locale] ?? order.product_id,
        returnUrl,
        notifyUrl: `${this.publicUrl.replace(/\/+$/, '')}/payments/${provider.method}/notify`,
        expiresAt: new Date(order.expires_at),
        locale,
      });
    } catch (cause) {
      throw new AppError('PAYMENT_METHOD_UNAVAILABLE', {}, { cause });
    }
    if (result.providerRef) {
      await this.db.updateTable('payments').set({ provider_ref: result.providerRef }).where('id', '=', payment.id).execute();
    }
    return result.qr_code ? { qr_code: result.qr_code } : { pay_url: result.pay_url ?? '' };
  }

  /**
   * Verifies a provider's notification and applies it once; the answer is what that provider expects. Every
   * notification of a configured provider is recorded (order_events) with its verification result and what it did.
   */
  async notify(method: string, notification: IncomingNotification): Promise<NotifyResult> {
    const provider = byMethod(this.providers, method);
    if (!provider || provider.method === 'sandbox') throw new AppError('NOT_FOUND');
    const base = { method: provider.method, kind: 'notification' as const };
    let notice;
    try {
      notice = await provider.verify(notification);
    } catch (e) {
      if (e instanceof ForgedNotification) {
        await this.events.record({ ...base, verification: 'forged', outcome: 'rejected', detail: { reason: e.message } });
        return { answer: provider.answer(false), rejected: { reason: 'forged', detail: e.message } };
      }
      throw e;
    }
    const verified = { ...base, verification: 'verified' as const };
    if (notice.outcome === 'ignored') {
      await this.events.record({ ...verified, outcome: 'ignored' });
      return { answer: provider.answer(true) };
    }
    const payment = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', notice.paymentId)
      .where('method', '=', provider.method)
      .executeTakeFirst();
    if (!payment) {
      await this.events.record({
        ...verified,
        outcome: 'unknown_payment',
        providerRef: notice.providerRef,
        detail: { payment_id: notice.paymentId },
      });
      return { answer: provider.answer(false), rejected: { reason: 'unknown payment', payment_id: notice.paymentId } };
    }
    const about = { ...verified, orderId: payment.order_id, paymentId: payment.id, providerRef: notice.providerRef };
    if (notice.outcome === 'failed') {
      await this.db
        .updateTable('payments')
        .set({ status: 'failed' })
        .where('id', '=', payment.id)
        .where('status', '=', 'started')
        .execute();
      await this.orders.markFailed(payment.order_id);
      await this.events.record({ ...about, outcome: 'failed', providerState: 'failed' });
      return { answer: provider.answer(true), applied: true };
    }
    const paid = { ...about, providerState: 'paid' as const, amount: notice.amount, currency: notice.currency };
    if (notice.amount !== Number(payment.amount) || notice.currency !== payment.currency) {
      const rejected = {
        reason: 'amount or currency differs from the checkout',
        order_id: payment.order_id,
        expected: `${payment.amount} ${payment.currency}`,
        received: `${notice.amount} ${notice.currency}`,
      };
      await this.events.record({ ...paid, outcome: 'rejected', detail: rejected });
      return { answer: provider.answer(false), rejected };
    }
    let outcome: SettleOutcome;
    try {
      outcome = await this.orders.settlePaid({
        orderId: payment.order_id,
        paymentId: payment.id,
        method: provider.method,
        amount: notice.amount,
        currency: payment.currency as Currency,
        providerRef: notice.providerRef,
      });
    } catch (e) {
      // The provider retries a notification that was not answered with success: the failure is on record meanwhile.
      await this.events.record({ ...paid, outcome: 'error', detail: { error: (e as Error).message } }).catch(() => undefined);
      throw e;
    }
    await this.events.record({ ...paid, outcome });
    const unclosed = outcome === 'applied' ? await this.closeOthers(payment.order_id, payment.id) : [];
    return {
      answer: provider.answer(true),
      applied: outcome === 'applied',
      ...(unclosed.length ? { unclosed } : {}),
      ...(outcome === 'duplicate'
        ? {
            duplicate: {
              order_id: payment.order_id,
              payment_id: payment.id,
              amount: `${payment.amount} ${payment.currency}`,
              provider_ref: notice.providerRef,
            },
          }
        : {}),
    };
  }

  /**
   * Closes the order's other checkouts once one payment settled it, so the payer cannot pay a second time through a
   * page left open. Returns those that could not be closed (their payment, should it come, is recorded as duplicate).
   */
  async closeOthers(orderId: string, settledBy: string): Promise<{ payment_id: string; method: string; error: string }[]> {
    const open = await this.db
      .selectFrom('payments')
      .select(['id', 'method', 'provider_ref'])
      .where('order_id', '=', orderId)
      .where('status', '=', 'started')
      .where('id', '!=', settledBy)
      .execute();
    const failed: { payment_id: string; method: string; error: string }[] = [];
    for (const attempt of open) {
      const provider = byMethod(this.providers, attempt.method);
      try {
        await provider?.close?.({ paymentId: attempt.id, providerRef: attempt.provider_ref });
        await this.db
          .updateTable('payments')
          .set({ status: 'closed' })
          .where('id', '=', attempt.id)
          .where('status', '=', 'started')
          .execute();
      } catch (e) {
        failed.push({ payment_id: attempt.id, method: attempt.method, error: (e as Error).message });
      }
    }
    return failed;
  }
}
