import type { MessageLocale } from '@polyvox/contracts';

const TEXTS = {
  en: {
    title: 'Polyvox test checkout',
    lead: 'This is the built-in test payment provider: no money moves. Choose how this payment ends.',
    product: 'Product',
    amount: 'Amount',
    order: 'Order',
    pay: 'Pay (succeeds)',
    fail: 'Fail the payment',
    closed: 'This order is no longer waiting for payment. Its status:',
    back: 'Return to Polyvox',
    status: { pending_payment: 'awaiting payment', successful: 'paid', failed: 'failed', expired: 'expired' },
  },
  'zh-CN': {
    title: 'Polyvox 测试收银台',
    lead: '这是内置的测试支付渠道，不会产生真实扣款。请选择本次支付的结果。',
    product: '商品',
    amount: '金额',
    order: '订单',
    pay: '支付（成功）',
    fail: '支付失败',
    closed: '该订单已不在待支付状态，当前状态：',
    back: '返回 Polyvox',
    status: { pending_payment: '待支付', successful: '已支付', failed: '支付失败', expired: '已过期' },
  },
  'zh-TW': {
    title: 'Polyvox 測試收銀台',
    lead: '這是內建的測試付款管道，不會產生真實扣款。請選擇本次付款的結果。',
    product: '商品',
    amount: '金額',
    order: '訂單',
    pay: '付款（成功）',
    fail: '付款失敗',
    closed: '此訂單已不在待付款狀態，目前狀態：',
    back: '返回 Polyvox',
    status: { pending_payment: '待付款', successful: '已付款', failed: '付款失敗', expired: '已過期' },
  },
} as const;

const INTL_LOCALE: Record<MessageLocale, string> = { en: 'en-US', 'zh-CN': 'zh-CN', 'zh-TW': 'zh-TW' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface SandboxPageInput {
  locale: MessageLocale;
  orderId: string;
  status: keyof (typeof TEXTS)['en']['status'];
  productName: string;
  amount: number;
  currency: string;
  token: string;
  returnUrl: string;
}

/** Plain HTML with no script: the buttons post a form, so the page works under the server's CSP. */
export function sandboxPage(input: SandboxPageInput): string {
  const t = TEXTS[input.locale];
  const money = new Intl.NumberFormat(INTL_LOCALE[input.locale], { style: 'currency', currency: input.currency }).format(
    input.amount / 100,
  );
  const action = `/pay/sandbox/${encodeURIComponent(input.orderId)}/complete?lang=${encodeURIComponent(input.locale)}`;
  const body =
    input.status === 'pending_payment'
      ? `<form method="post" action="${escapeHtml(action)}">
  <input type="hidden" name="token" value="${escapeHtml(input.token)}">
  <button type="submit" name="outcome" value="success" data-testid="sandbox-pay">${t.pay}</button>
  <button type="submit" name="outcome" value="fail" class="secondary" data-testid="sandbox-fail">${t.fail}</button>
</form>`
      : `<p data-testid="sandbox-closed">${t.closed} <strong>${t.status[input.status]}</strong></p>
<p><a href="${escapeHtml(input.returnUrl)}">${t.back}</a></p>`;
  return `<!doctype html>
<html lang="${input.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${t.title}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1f2328;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(0,0,0,.08);padding:32px;max-width:420px;width:100%}
h1{font-size:20px;margin:0 0 8px}p{color:#57606a;line-height:1.5}
dl{display:grid;grid-template-columns:auto 1fr;gap:8px 16px;margin:24px 0}dt{color:#57606a}dd{margin:0;font-weight:600}
form{display:flex;gap:12px;flex-wrap:wrap}button{flex:1;font-size:16px;padding:12px;border-radius:8px;border:0;background:#228be6;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#c92a2a;border:1px solid #c92a2a}
</style>
</head>
<body>
<main>
<h1>${t.title}</h1>
<p>${t.lead}</p>
<dl>
<dt>${t.product}</dt><dd data-testid="sandbox-product">${escapeHtml(input.productName)}</dd>
<dt>${t.amount}</dt><dd data-testid="sandbox-amount">${escapeHtml(money)}</dd>
<dt>${t.order}</dt><dd>${escapeHtml(input.orderId)}</dd>
</dl>
${body}
</main>
</body>
</html>
`;
}
