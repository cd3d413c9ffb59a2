import type { ExpressionBuilder } from 'kysely';
import type { Currency, PaymentMethod } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import type { Database, PaymentsTable } from '../platform/db/schema.js';
import type { OrderRow } from '../orders/service.js';
import type { QueriedPayment } from './provider.js';
import { byMethod, PaymentsCheckout } from './checkout.js';

export const RECONCILIATION_KINDS = [
  'paid_not_applied',
  'applied_not_paid',
  'duplicate_payment',
  'refunded_not_recorded',
  'unconfirmed',
] as const;
export type ReconciliationKind = (typeof RECONCILIATION_KINDS)[number];
type ReconJoin = Database & { p: PaymentsTable; o: Database['orders'] };

function reconciliationKind(r: {
  method: string;
  payment_status: string;
  provider_state: string | null;
  refunded_at: string | null;
}): ReconciliationKind {
  if (r.payment_status === 'duplicate') return 'duplicate_payment';
  if (r.payment_status === 'paid' && r.provider_state === 'refunded') return 'refunded_not_recorded';
  if (r.payment_status === 'paid') return 'applied_not_paid';
  if (r.provider_state === 'paid' || r.provider_state === 'refunded') return 'paid_not_applied';
  return 'unconfirmed';
}

/** What each provider said when an operator asked, attempt by attempt. */
export interface RequeryAnswer {
  payment_id: string;
  method: string;
  provider_state: string | null;
  /** consistent | applied | already | duplicate | rejected | mismatch | error */
  outcome: string;
}
export interface RequeryResult {
  before: OrderRow;
  order: OrderRow;
  answers: RequeryAnswer[];
}

/** The operator's reconciliation (PaymentsService's second part): the list of mismatches, and re-asking the providers. */
export class PaymentsReconciliation extends PaymentsCheckout {
  /**
   * Asks each provider the order was paid through for the state of its attempts, records each answer, and applies a
   * payment the provider took that we never applied (a lost or rejected notification) exactly as a verified
   * notification would: the same amount check, the same single settlement. The operator's reconciliation action.
   */
  async requery(orderId: string, operatorId: string): Promise<RequeryResult> {
    const order = await this.orders.find(orderId);
    if (!order) throw new AppError('NOT_FOUND');
    const attempts = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .execute();
    const answers: RequeryAnswer[] = [];
    for (const attempt of attempts) {
      const base = {
        orderId,
        paymentId: attempt.id,
        method: attempt.method,
        kind: 'query' as const,
        verification: 'verified' as const,
        operatorId,
      };
      if (attempt.method === 'sandbox') {
        // The sandbox is this server: its rows are the provider's state.
        const state = attempt.status === 'paid' || attempt.status === 'duplicate' ? 'paid' : 'unpaid';
        await this.events.record({ ...base, outcome: 'consistent', providerState: state });
        answers.push({ payment_id: attempt.id, method: attempt.method, provider_state: state, outcome: 'consistent' });
        continue;
      }
      const provider = byMethod(this.providers, attempt.method);
      let queried: QueriedPayment;
      try {
        if (!provider) throw new Error(`${attempt.method} is not configured here`);
        queried = await provider.query({ paymentId: attempt.id, providerRef: attempt.provider_ref });
      } catch (e) {
        await this.events.record({ ...base, outcome: 'error', detail: { error: (e as Error).message } });
        answers.push({ payment_id: attempt.id, method: attempt.method, provider_state: null, outcome: 'error' });
        continue;
      }
      const seen = {
        ...base,
        providerState: queried.state,
        amount: queried.amount,
        currency: queried.currency,
        providerRef: queried.providerRef,
      };
      let outcome: string = 'consistent';
      let detail: Record<string, unknown> | null = null;
      const oursPaid = attempt.status === 'paid' || attempt.status === 'duplicate';
      if (queried.state === 'paid' && !oursPaid) {
        if (queried.amount !== Number(attempt.amount) || queried.currency !== attempt.currency) {
          outcome = 'rejected';
          detail = {
            reason: 'amount or currency differs from the checkout',
            expected: `${attempt.amount} ${attempt.currency}`,
            received: `${queried.amount} ${queried.currency}`,
          };
        } else {
          outcome = await this.orders.settlePaid({
            orderId,
            paymentId: attempt.id,
            method: attempt.method as PaymentMethod,
            amount: Number(attempt.amount),
            currency: attempt.currency as Currency,
            providerRef: queried.providerRef ?? attempt.id,
          });
          if (outcome === 'applied') await this.closeOthers(orderId, attempt.id);
        }
      } else if (oursPaid && (queried.state === 'unpaid' || queried.state === 'closed' || queried.state === 'failed')) {
        outcome = 'mismatch';
      }
      await this.events.record({ ...seen, outcome, detail });
      answers.push({ payment_id: attempt.id, method: attempt.method, provider_state: queried.state, outcome });
    }
    return { order: (await this.orders.find(orderId))!, before: order, answers };
  }

  /**
   * Attempts whose provider state and ours differ: a payment the provider took that we did not apply, one we applied
   * that the provider does not show as paid, a second payment of a paid order, a refund we have no record of, and
   * (kind `unconfirmed`) checkouts at a real provider whose order lapsed without any word from the provider.
   */
  async reconciliation(kind: ReconciliationKind | undefined, page: number, pageSize: number) {
    const where = (eb: ExpressionBuilder<ReconJoin, 'p' | 'o'>) => {
      const kinds = {
        paid_not_applied: eb.and([
          eb('p.provider_state', 'in', ['paid', 'refunded']),
          eb('p.status', 'not in', ['paid', 'duplicate']),
        ]),
        applied_not_paid: eb.and([eb('p.status', '=', 'paid'), eb('p.provider_state', 'in', ['unpaid', 'closed', 'failed'])]),
        duplicate_payment: eb('p.status', '=', 'duplicate'),
        refunded_not_recorded: eb.and([
          eb('p.provider_state', '=', 'refunded'),
          eb('p.status', '=', 'paid'),
          eb('o.refunded_at', 'is', null),
        ]),
        unconfirmed: eb.and([
          eb('p.method', '!=', 'sandbox'),
          eb('p.status', '=', 'started'),
          eb('p.provider_state', 'is', null),
          eb('o.status', 'in', ['expired', 'failed']),
        ]),
      } as const;
      return kind ? kinds[kind] : eb.or(Object.values(kinds));
    };
    const base = this.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').where(where);
    const [rows, count] = await Promise.all([
      base
        .select([
          'p.id as payment_id',
          'p.method',
          'p.amount',
          'p.currency',
          'p.status as payment_status',
          'p.provider_state',
          'p.provider_checked_at',
          'p.created_at',
          'o.id as order_id',
          'o.account_id',
          'o.status as order_status',
          'o.refunded_at',
        ])
        .orderBy('p.created_at', 'desc')
        .orderBy('p.id', 'desc')
        .offset((page - 1) * pageSize)
        .limit(pageSize)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      items: rows.map((r) => ({ ...r, amount: Number(r.amount), kind: reconciliationKind(r) })),
      total: Number(count.n),
    };
  }
}
