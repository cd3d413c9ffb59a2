import { describe, expect, it } from 'vitest';
import { refundFigures } from '../../src/orders/refund.js';

// The worked numbers of the credits guide's refund section (docs/site/pages/en/topics/credits.md), with the products of config/products.json:
// basic plan = monthly, 300,000 credits for 2,900 fen (CNY) or 499 cents (USD).
describe('refundFigures', () => {
  it('monthly plan (the basic plan), 120,000 credits used: 180,000 credits and 17.40 CNY back', () => {
    expect(
      refundFigures({
        orderCredits: 300_000,
        orderAmount: 2900,
        used: 120_000,
        basicCredits: 300_000,
        basicPrice: 2900,
        balance: 190_000,
      }),
    ).toEqual({ used: 120_000, usedAtBasic: 120_000, refundableCredits: 180_000, amount: 1740, deducted: 180_000 });
  });

  it('annual plan, 1,000,000 credits used: used credits priced at the monthly rate', () => {
    expect(
      refundFigures({
        orderCredits: 5_000_000,
        orderAmount: 26_900,
        used: 1_000_000,
        basicCredits: 300_000,
        basicPrice: 2900,
        balance: 4_000_000,
      }),
    ).toEqual({ used: 1_000_000, usedAtBasic: 1_796_779, refundableCredits: 3_203_221, amount: 17_233, deducted: 4_000_000 });
  });

  it('annual plan in USD, 1,000,000 credits used', () => {
    expect(
      refundFigures({
        orderCredits: 5_000_000,
        orderAmount: 3999,
        used: 1_000_000,
        basicCredits: 300_000,
        basicPrice: 499,
        balance: 9_000_000,
      }),
    ).toMatchObject({ usedAtBasic: 2_079_687, refundableCredits: 2_920_313, amount: 2335, deducted: 4_000_000 });
  });

  it('a pack dearer per credit than the basic plan: used credits cost less than the pack charged', () => {
    expect(
      refundFigures({
        orderCredits: 100_000,
        orderAmount: 1200,
        used: 50_000,
        basicCredits: 300_000,
        basicPrice: 2900,
        balance: 60_000,
      }),
    ).toEqual({ used: 50_000, usedAtBasic: 40_278, refundableCredits: 59_722, amount: 716, deducted: 50_000 });
  });

  it('never goes below zero: everything used, more than bought, or a balance already spent elsewhere', () => {
    const all = refundFigures({
      orderCredits: 300_000,
      orderAmount: 2900,
      used: 400_000,
      basicCredits: 300_000,
      basicPrice: 2900,
      balance: 5,
    });
    expect(all).toMatchObject({ refundableCredits: 0, amount: 0, deducted: 0 });
    const poor = refundFigures({
      orderCredits: 300_000,
      orderAmount: 2900,
      used: 0,
      basicCredits: 300_000,
      basicPrice: 2900,
      balance: 1000,
    });
    // Credits already gone from the balance are not paid back: 1,000 of 300,000 left → 2900 × 1000 / 300000.
    expect(poor).toMatchObject({ refundableCredits: 300_000, amount: 9, deducted: 1000 });
    const negative = refundFigures({
      orderCredits: 300_000,
      orderAmount: 2900,
      used: -50,
      basicCredits: 300_000,
      basicPrice: 2900,
      balance: 300_000,
    });
    expect(negative).toMatchObject({ used: 0, amount: 2900, deducted: 300_000 });
  });
});
