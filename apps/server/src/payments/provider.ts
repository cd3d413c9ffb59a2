import type { Currency, MessageLocale, PaymentMethod } from '@polyvox/contracts';

/** What a checkout is asked to take: one payment attempt of one order. */
export interface CheckoutRequest {
  orderId: string;
  /** Our reference the provider echoes back in its notification (out_trade_no, client_reference_id …). */
  paymentId: string;
  amount: number;
  currency: Currency;
  description: string;
  /** Absolute URL the payer returns to. */
  returnUrl: string;
  /** Absolute URL the provider notifies. */
  notifyUrl: string;
  expiresAt: Date;
  locale: MessageLocale;
}

export interface CheckoutResult {
  pay_url?: string;
  qr_code?: string;
  /** The provider's id of the checkout, when it gives one at creation. */
  providerRef?: string;
}

/** A notification whose signature checked out, reduced to what settles an order. */
export type VerifiedNotice =
  | { outcome: 'paid'; paymentId: string; amount: number; currency: string; providerRef: string }
  | { outcome: 'failed'; paymentId: string; providerRef: string }
  /** Signed and genuine, but about something that changes no order (another event type, a pending trade). */
  | { outcome: 'ignored' };

export interface IncomingNotification {
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as it arrived: signatures cover these bytes. */
  raw: string;
}

/** The answer a provider expects, so it stops (or keeps) retrying. */
export interface NotifyAnswer {
  status: number;
  contentType: string;
  body: string;
}

export class ForgedNotification extends Error {}

/** Money to return for a paid attempt; the order id is the refund's idempotency key at the provider. */
export interface RefundRequest {
  orderId: string;
  paymentId: string;
  /** The provider's id of the payment (Checkout Session id, Alipay trade_no, WeChat Pay transaction_id). */
  providerRef: string | null;
  /** Minor units to return. */
  amount: number;
  /** Minor units the payment took. */
  total: number;
  currency: string;
}

/** The provider refused or could not be reached: no money moved (or the same refund may be asked again). */
export class RefundFailed extends Error {}

/** What the provider says of one payment attempt when asked (the reconciliation's re-query). */
export type ProviderState = 'paid' | 'unpaid' | 'closed' | 'refunded' | 'failed';
export interface QueriedPayment {
  state: ProviderState;
  /** What the provider says was paid, in minor units (null when nothing was). */
  amount: number | null;
  currency: string | null;
  /** The provider's id of the payment, when it has one. */
  providerRef: string | null;
}

/** One payment provider; chosen from the settings by `createProviders`. */
export interface PaymentProvider {
  readonly method: PaymentMethod;
  /** Currencies it takes, best first; an order in another currency is charged its price in the first one. */
  readonly currencies: readonly Currency[];
  checkout(request: CheckoutRequest): Promise<CheckoutResult>;
  /** Verifies the signature (throws ForgedNotification when it fails) and reads the notice. */
  verify(notification: IncomingNotification): Promise<VerifiedNotice>;
  answer(accepted: boolean): NotifyAnswer;
  /**
   * Closes a checkout that was started but is no longer wanted (its order was paid another way), so the payer
   * cannot pay twice. Resolves when the provider closed it or never knew it; throws when it could not.
   */
  close?(attempt: { paymentId: string; providerRef: string | null }): Promise<void>;
  /**
   * Returns money of a paid attempt and resolves to the provider's refund id. Asked again with the same order
   * id, the provider answers the same refund rather than returning the money twice. Throws RefundFailed when
   * the provider refuses.
   */
  refund(request: RefundRequest): Promise<string>;
  /**
   * Asks the provider for the state of one payment attempt (its own API, answers checked as its notifications are).
   * Throws when the provider cannot be reached or answers something unreadable.
   */
  query(attempt: { paymentId: string; providerRef: string | null }): Promise<QueriedPayment>;
}
