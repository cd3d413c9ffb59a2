import type { Order, PaymentMethod } from '../api/economy';

/**
 * Where the provider sends the buyer back: the console's result page of this order, as a path. The server resolves
 * it against its PUBLIC_URL (the only origin it trusts, with ALLOWED_ORIGINS), so the console works whatever name
 * the browser reached it by.
 */
export function returnUrl(orderId: string): string {
  return `/#/app/orders/${encodeURIComponent(orderId)}/result`;
}

export function isFinal(order: Pick<Order, 'status'> | undefined): boolean {
  return order !== undefined && order.status !== 'pending_payment';
}

/** How often the result page asks for the order while it is pending. */
export const ORDER_POLL_MS = 2000;

/**
 * The methods to offer: those the server says it has configured (its list, or the products' field),
 * in the console's order; the sandbox only when the server names it. Nothing known: the sandbox,
 * the embedded default (a method that turns out unconfigured answers PAYMENT_METHOD_UNAVAILABLE).
 */
export function offeredMethods(
  fromServer: readonly string[] | undefined,
  order: readonly PaymentMethod[] = ['card', 'alipay', 'wechat', 'sandbox'],
): PaymentMethod[] {
  if (!fromServer) return ['sandbox'];
  return order.filter((m) => fromServer.includes(m));
}

export interface CheckoutWindow {
  /** Sends the window to the provider's page. */
  go(url: string): void;
  close(): void;
}

type Opener = (url: string, target: string) => Window | null;

/**
 * Opens the checkout tab while the click is still a user gesture (a tab opened after the order is
 * created would be blocked), blank until the provider's address is known. Null: the browser blocked
 * it, and the page offers a link instead.
 */
export function openCheckoutWindow(open: Opener): CheckoutWindow | null {
  let win: Window | null;
  try {
    win = open('', '_blank');
  } catch {
    win = null;
  }
  if (!win) return null;
  const opened = win;
  try {
    // The provider's page gets no handle on the console.
    opened.opener = null;
  } catch {
    // Some browsers make it read-only; the tab is still ours to steer.
  }
  return {
    go: (url) => {
      opened.location.href = url;
    },
    close: () => opened.close(),
  };
}

/** A provider address the console may open: http(s) only, never `javascript:` or `data:`. */
export function isSafePayUrl(url: string, base: string): boolean {
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}
