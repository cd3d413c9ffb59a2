/**
 * What a refund gives back, in integers only (BigInt inside, so no rounding drifts):
 *
 *   U = credits spent since the order was paid (ledger spends after paid_at, net of returned holds), at least 0
 *   C = ceil(U × basic_price × order_credits / (basic_credits × order_amount))
 *       the used credits priced at the basic plan's price per credit, counted in this order's credits
 *   R = max(0, order_credits − C)                        the refundable part of the order, in its credits
 *   L = max(0, order_credits − U)                        what the order left unused
 *   D = min(balance, L)                                  credits taken off the balance
 *   M = floor(order_amount × R / order_credits)          money returned, in proportion to R;
 *       when the balance no longer holds all of L (D < L), M is scaled by D / L: money only for credits taken back
 *
 * basic_price is the basic plan's price in the order's currency.
 */
export interface RefundInput {
  orderCredits: number;
  orderAmount: number;
  used: number;
  basicCredits: number;
  basicPrice: number;
  balance: number;
}
export interface RefundFigures {
  used: number;
  usedAtBasic: number;
  refundableCredits: number;
  amount: number;
  deducted: number;
}

const big = (n: number) => BigInt(Math.trunc(n));

export function refundFigures(input: RefundInput): RefundFigures {
  const used = Math.max(0, input.used);
  const num = big(used) * big(input.basicPrice) * big(input.orderCredits);
  const den = big(input.basicCredits) * big(input.orderAmount);
  const usedAtBasic = den === 0n ? input.orderCredits : Number((num + den - 1n) / den);
  const refundableCredits = Math.max(0, input.orderCredits - usedAtBasic);
  const left = Math.max(0, input.orderCredits - used);
  const deducted = Math.max(0, Math.min(input.balance, left));
  let amount = input.orderCredits > 0 ? (big(input.orderAmount) * big(refundableCredits)) / big(input.orderCredits) : 0n;
  if (deducted < left) amount = (amount * big(deducted)) / big(left);
  return { used, usedAtBasic, refundableCredits, amount: Number(amount), deducted };
}
