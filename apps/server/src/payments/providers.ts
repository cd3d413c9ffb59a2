import { PAYMENT_METHODS, type PaymentMethod } from '@polyvox/contracts';
import type { Config } from '../platform/config.js';
import type { PaymentProvider } from './provider.js';
import { sandboxProvider } from './sandbox.js';
import { stripeProvider } from './stripe.js';
import { alipayProvider } from './alipay.js';
import { wechatProvider } from './wechat.js';

/** The providers whose settings are complete, in the contract's order; a method without them is not offered. */
export function createProviders(config: Config, secret: string): Map<PaymentMethod, PaymentProvider> {
  const providers = new Map<PaymentMethod, PaymentProvider>();
  for (const method of PAYMENT_METHODS) {
    const provider = providerFor(method, config, secret);
    if (provider) providers.set(method, provider);
  }
  return providers;
}

function providerFor(method: PaymentMethod, c: Config, secret: string): PaymentProvider | null {
  switch (method) {
    case 'sandbox':
      return c.PAYMENT_SANDBOX ? sandboxProvider(secret) : null;
    case 'card':
      return c.STRIPE_SECRET_KEY && c.STRIPE_WEBHOOK_SECRET
        ? stripeProvider({
            secretKey: c.STRIPE_SECRET_KEY,
            webhookSecret: c.STRIPE_WEBHOOK_SECRET,
            ...(c.STRIPE_API_BASE ? { apiBase: c.STRIPE_API_BASE } : {}),
          })
        : null;
    case 'alipay':
      return c.ALIPAY_APP_ID && c.ALIPAY_PRIVATE_KEY && c.ALIPAY_PUBLIC_KEY
        ? alipayProvider({
            appId: c.ALIPAY_APP_ID,
            privateKey: c.ALIPAY_PRIVATE_KEY,
            alipayPublicKey: c.ALIPAY_PUBLIC_KEY,
            ...(c.ALIPAY_GATEWAY ? { gateway: c.ALIPAY_GATEWAY } : {}),
          })
        : null;
    case 'wechat':
      return c.WECHAT_MCH_ID &&
        c.WECHAT_APP_ID &&
        c.WECHAT_API_V3_KEY &&
        c.WECHAT_PRIVATE_KEY &&
        c.WECHAT_SERIAL_NO &&
        c.WECHAT_PLATFORM_CERT
        ? wechatProvider({
            mchId: c.WECHAT_MCH_ID,
            appId: c.WECHAT_APP_ID,
            apiV3Key: c.WECHAT_API_V3_KEY,
            privateKey: c.WECHAT_PRIVATE_KEY,
            serialNo: c.WECHAT_SERIAL_NO,
            platformCert: c.WECHAT_PLATFORM_CERT,
            ...(c.WECHAT_API_BASE ? { apiBase: c.WECHAT_API_BASE } : {}),
          })
        : null;
    default: {
      const never: never = method;
      throw new Error(`unknown payment method ${String(never)}`);
    }
  }
}
