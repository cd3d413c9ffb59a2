/**
 * What a refund gives back, in integers only (BigInt inside, so no rounding drifts):
 *
 *   U = credits spent since the order was paid (ledger spends after paid_at, net of returned holds), at least 0
 *   C = ceil(U × basic_price × order_credits / (basic_credits × order_amount))
 *       the used credits priced at the basic plan's price per credit, counted in this order's credits
 *   R = max(0, order_credits − C)                        the refundable part of the order, in its credits
 *   M = floor(order_amount × R / order_credits)          money returned, in proportion to R
 *   D = min(balance, max(0, order_credits − U))          credits taken off the balance: what the order left unused
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
  const amount = input.orderCredits > 0 ? Number((big(input.orderAmount) * big(refundableCredits)) / big(input.orderCredits)) : 0;
  const deducted = Math.max(0, Math.min(input.balance, input.orderCredits - used));
  return { used, usedAtBasic, refundableCredits, amount, deducted };
}
