import type { Money, Product } from '../api/economy';

/** The currency a price is shown in: yuan for the Chinese interfaces, dollars for every other. */
export function currencyFor(ui: string): 'CNY' | 'USD' {
  return ui === 'zh-CN' || ui === 'zh-TW' ? 'CNY' : 'USD';
}

/** How many minor units make one major unit of the currency (100 for CNY and USD, 1 for JPY). */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An amount in minor units (cents, fen) as the locale writes money: "$9.99", "¥68.00", "US$9.99". */
export function formatMoney(money: Money, locale: string): string {
  const digits = minorDigits(money.currency);
  const value = money.amount / 10 ** digits;
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: money.currency,
      minimumFractionDigits: Number.isInteger(value) ? 0 : digits,
      maximumFractionDigits: digits,
    }).format(value);
  } catch {
    return `${value.toFixed(digits)} ${money.currency}`;
  }
}

/**
 * The product's price in `currency` when the server sent every price (a list of Money, or a map of
 * currency to amount); else the one price it chose for the request's language.
 */
export function priceIn(product: Product, currency: string): Money {
  const { prices } = product;
  if (Array.isArray(prices)) {
    const match = prices.find((p) => p.currency === currency);
    if (match) return match;
  } else if (prices && /^[A-Z]{3}$/.test(currency) && Object.hasOwn(prices, currency)) {
    const amount = prices[currency];
    if (typeof amount === 'number') return { amount, currency };
  }
  return product.price;
}

/** The price per 1,000 credits, for comparing packs; null for a free product. */
export function pricePerThousand(product: Product, currency: string): Money | null {
  const price = priceIn(product, currency);
  if (product.credits <= 0 || price.amount <= 0) return null;
  return { amount: Math.round((price.amount * 1000) / product.credits), currency: price.currency };
}
