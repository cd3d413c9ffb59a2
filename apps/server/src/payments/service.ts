import type { Kysely, Selectable } from 'kysely';
import { PAYMENT_METHODS, type Currency, type MessageLocale, type PaymentMethod } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Database, PaymentsTable } from '../platform/db/schema.js';
import type { OrderRow, OrdersService, RefundResult } from '../orders/service.js';
import type { CheckoutResult, IncomingNotification, NotifyAnswer, PaymentProvider } from './provider.js';
import { ForgedNotification, RefundFailed } from './provider.js';
import { checkSandboxToken } from './sandbox.js';

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

const byMethod = (methods: ReadonlyMap<PaymentMethod, PaymentProvider>, method: string): PaymentProvider | null =>
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

/** Starts checkouts with the configured providers and applies what they report, once. */
export class PaymentsService {
  private readonly db: Kysely<Database>;
  private readonly orders: OrdersService;
  private readonly providers: ReadonlyMap<PaymentMethod, PaymentProvider>;
  private readonly secret: string;
  private readonly publicUrl: string;

  constructor(options: PaymentsOptions) {
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
  refund(orderId: string): Promise<RefundResult> {
    return this.orders.refund(orderId, async (money) => {
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
    });
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

  /** Verifies a provider's notification and applies it once; the answer is what that provider expects. */
  async notify(method: string, notification: IncomingNotification): Promise<NotifyResult> {
    const provider = byMethod(this.providers, method);
    if (!provider || provider.method === 'sandbox') throw new AppError('NOT_FOUND');
    let notice;
    try {
      notice = await provider.verify(notification);
    } catch (e) {
      if (e instanceof ForgedNotification)
        return { answer: provider.answer(false), rejected: { reason: 'forged', detail: e.message } };
      throw e;
    }
    if (notice.outcome === 'ignored') return { answer: provider.answer(true) };
    const payment = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', notice.paymentId)
      .where('method', '=', provider.method)
      .executeTakeFirst();
    if (!payment)
      return { answer: provider.answer(false), rejected: { reason: 'unknown payment', payment_id: notice.paymentId } };
    if (notice.outcome === 'failed') {
      await this.db
        .updateTable('payments')
        .set({ status: 'failed' })
        .where('id', '=', payment.id)
        .where('status', '=', 'started')
        .execute();
      await this.orders.markFailed(payment.order_id);
      return { answer: provider.answer(true), applied: true };
    }
    if (notice.amount !== Number(payment.amount) || notice.currency !== payment.currency) {
      return {
        answer: provider.answer(false),
        rejected: {
          reason: 'amount or currency differs from the checkout',
          order_id: payment.order_id,
          expected: `${payment.amount} ${payment.currency}`,
          received: `${notice.amount} ${notice.currency}`,
        },
      };
    }
    const outcome = await this.orders.settlePaid({
      orderId: payment.order_id,
      paymentId: payment.id,
      method: provider.method,
      amount: notice.amount,
      currency: payment.currency as Currency,
      providerRef: notice.providerRef,
    });
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

  /** The sandbox attempt a token names for this order; FORBIDDEN for a forged token or another order's. */
  async sandboxAttempt(orderId: string, token: string): Promise<{ order: OrderRow; payment: PaymentRow }> {
    if (!this.providers.has('sandbox')) throw new AppError('NOT_FOUND');
    const paymentId = checkSandboxToken(this.secret, orderId, token);
    if (!paymentId) throw new AppError('FORBIDDEN');
    const payment = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', paymentId)
      .where('order_id', '=', orderId)
      .where('method', '=', 'sandbox')
      .executeTakeFirst();
    const order = payment ? await this.orders.find(orderId) : null;
    if (!payment || !order) throw new AppError('FORBIDDEN');
    return { order, payment };
  }

  /** The sandbox's buttons: settles exactly as a verified notification does; returns where the payer goes next. */
  async sandboxComplete(
    orderId: string,
    token: string,
    outcome: 'success' | 'fail',
  ): Promise<{ returnUrl: string; unclosed: { payment_id: string; method: string; error: string }[] }> {
    const { payment } = await this.sandboxAttempt(orderId, token);
    let unclosed: { payment_id: string; method: string; error: string }[] = [];
    if (outcome === 'success') {
      const settled = await this.orders.settlePaid({
        orderId,
        paymentId: payment.id,
        method: 'sandbox',
        amount: Number(payment.amount),
        currency: payment.currency as Currency,
        providerRef: payment.id,
      });
      if (settled === 'applied') unclosed = await this.closeOthers(orderId, payment.id);
    } else {
      await this.orders.markFailed(orderId);
    }
    return { returnUrl: payment.return_url, unclosed };
  }
}
