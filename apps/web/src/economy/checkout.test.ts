import { describe, expect, it } from 'vitest';
import { isFinal, isSafePayUrl, offeredMethods, openCheckoutWindow, returnUrl } from './checkout';

describe('returnUrl', () => {
  it('points at the order result route of the console as a path (the server adds its PUBLIC_URL), with the id escaped', () => {
    expect(returnUrl('ord_1')).toBe('/#/app/orders/ord_1/result');
    expect(returnUrl('a/b?c')).toBe('/#/app/orders/a%2Fb%3Fc/result');
  });
});

describe('isFinal', () => {
  it('is false while the order waits for its payment, and when there is no order yet', () => {
    expect(isFinal(undefined)).toBe(false);
    expect(isFinal({ status: 'pending_payment' })).toBe(false);
    for (const status of ['successful', 'failed', 'expired']) expect(isFinal({ status })).toBe(true);
  });
});

describe('offeredMethods', () => {
  it('offers only what the server configured, in a fixed order', () => {
    expect(offeredMethods(['sandbox', 'wechat', 'card'])).toEqual(['card', 'wechat', 'sandbox']);
    expect(offeredMethods(['alipay'])).toEqual(['alipay']);
    expect(offeredMethods([])).toEqual([]);
  });

  it('ignores names it does not know and falls back to the sandbox when the server says nothing', () => {
    expect(offeredMethods(['bitcoin', '__proto__', 'sandbox'])).toEqual(['sandbox']);
    expect(offeredMethods(undefined)).toEqual(['sandbox']);
  });
});

describe('openCheckoutWindow', () => {
  it('opens a blank tab, cuts its opener and steers it later', () => {
    const fake = {
      opener: {} as unknown,
      location: { href: 'about:blank' },
      closed: false,
      close() {
        this.closed = true;
      },
    };
    const calls: string[][] = [];
    const win = openCheckoutWindow((url, target) => {
      calls.push([url, target]);
      return fake as unknown as Window;
    });
    expect(calls).toEqual([['', '_blank']]);
    expect(fake.opener).toBeNull();
    win!.go('https://pay.test/checkout');
    expect(fake.location.href).toBe('https://pay.test/checkout');
    win!.close();
    expect(fake.closed).toBe(true);
  });

  it('returns null when the browser blocks the tab, or throws', () => {
    expect(openCheckoutWindow(() => null)).toBeNull();
    expect(
      openCheckoutWindow(() => {
        throw new Error('blocked');
      }),
    ).toBeNull();
  });
});

describe('isSafePayUrl', () => {
  it('accepts http(s) addresses, relative ones included, and refuses script and data URLs', () => {
    expect(isSafePayUrl('/pay/sandbox/ord_1?token=x', 'http://127.0.0.1')).toBe(true);
    expect(isSafePayUrl('https://checkout.stripe.com/c/pay/cs_1', 'http://127.0.0.1')).toBe(true);
    expect(isSafePayUrl('javascript:alert(1)', 'http://127.0.0.1')).toBe(false);
    expect(isSafePayUrl('data:text/html,hi', 'http://127.0.0.1')).toBe(false);
    expect(isSafePayUrl('http://[bad', 'http://127.0.0.1')).toBe(false);
  });
});
