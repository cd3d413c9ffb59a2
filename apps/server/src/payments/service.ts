import type { Currency } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import type { OrderRow } from '../orders/service.js';
import { checkSandboxToken } from './sandbox.js';
import type { PaymentRow } from './checkout.js';
import { PaymentsReconciliation } from './reconciliation.js';

export { type NotifyResult, type PaymentRow, type PaymentsOptions } from './checkout.js';
export { RECONCILIATION_KINDS, type ReconciliationKind, type RequeryAnswer, type RequeryResult } from './reconciliation.js';

/** Starts checkouts with the configured providers and applies what they report, once. */
export class PaymentsService extends PaymentsReconciliation {
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
    const event = {
      orderId,
      paymentId: payment.id,
      method: 'sandbox',
      kind: 'sandbox' as const,
      verification: 'verified' as const,
    };
    if (outcome === 'success') {
      const settled = await this.orders.settlePaid({
        orderId,
        paymentId: payment.id,
        method: 'sandbox',
        amount: Number(payment.amount),
        currency: payment.currency as Currency,
        providerRef: payment.id,
      });
      await this.events.record({
        ...event,
        outcome: settled,
        providerState: 'paid',
        amount: Number(payment.amount),
        currency: payment.currency,
        providerRef: payment.id,
      });
      if (settled === 'applied') unclosed = await this.closeOthers(orderId, payment.id);
    } else {
      await this.orders.markFailed(orderId);
      await this.events.record({ ...event, outcome: 'failed', providerState: 'failed' });
    }
    return { returnUrl: payment.return_url, unclosed };
  }
}
