import { describe, expect, it } from 'vitest';
import type { Product } from '../api/economy';
import { currencyFor, formatMoney, minorDigits, priceIn, pricePerThousand } from './money';

const monthly: Product = {
  id: 'monthly',
  kind: 'plan',
  plan: 'monthly',
  name: 'Monthly',
  price: { amount: 999, currency: 'USD' },
  credits: 100_000,
  period_days: 30,
};

describe('currencyFor', () => {
  it('shows yuan to both Chinese interfaces and dollars to the others', () => {
    expect(currencyFor('zh-CN')).toBe('CNY');
    expect(currencyFor('zh-TW')).toBe('CNY');
    expect(currencyFor('en')).toBe('USD');
    expect(currencyFor('fr')).toBe('USD');
  });
});

describe('formatMoney', () => {
  it('reads minor units as the currency counts them', () => {
    expect(minorDigits('USD')).toBe(2);
    expect(minorDigits('JPY')).toBe(0);
    expect(formatMoney({ amount: 999, currency: 'USD' }, 'en')).toBe('$9.99');
    expect(formatMoney({ amount: 6800, currency: 'CNY' }, 'zh-CN')).toBe('¥68');
    expect(formatMoney({ amount: 6850, currency: 'CNY' }, 'zh-CN')).toBe('¥68.50');
    expect(formatMoney({ amount: 500, currency: 'JPY' }, 'en')).toBe('¥500');
  });

  it('survives a currency code Intl does not know', () => {
    expect(formatMoney({ amount: 150, currency: 'not-a-code' }, 'en')).toBe('1.50 not-a-code');
  });
});

describe('priceIn', () => {
  it('picks the asked currency from a list or a map of prices, else the chosen price', () => {
    const list = { ...monthly, prices: [monthly.price, { amount: 6800, currency: 'CNY' }] };
    expect(priceIn(list, 'CNY')).toEqual({ amount: 6800, currency: 'CNY' });
    const map = { ...monthly, prices: { USD: 999, CNY: 6800 } };
    expect(priceIn(map, 'CNY')).toEqual({ amount: 6800, currency: 'CNY' });
    expect(priceIn(monthly, 'CNY')).toEqual(monthly.price);
  });

  it('does not take inherited keys of the map for currencies', () => {
    const map = { ...monthly, prices: JSON.parse('{"__proto__": 1, "USD": 999}') as Record<string, number> };
    expect(priceIn(map, '__proto__')).toEqual(monthly.price);
    expect(priceIn(map, 'constructor')).toEqual(monthly.price);
  });
});

describe('pricePerThousand', () => {
  it('divides the price by thousands of credits, and has none for free products', () => {
    expect(pricePerThousand(monthly, 'USD')).toEqual({ amount: 10, currency: 'USD' });
    expect(pricePerThousand({ ...monthly, price: { amount: 0, currency: 'USD' } }, 'USD')).toBeNull();
  });
});
