import { describe, expect, it } from 'vitest';
import { extractText } from 'unpdf';
import { receiptFonts } from '../../src/invoices/fonts.js';
import { formatMoney, formatTime, renderReceipt, type ReceiptData } from '../../src/invoices/receipt.js';

const data: ReceiptData = {
  orderId: 'ord_0test',
  productName: { en: 'Monthly plan', 'zh-CN': '月度会员', 'zh-TW': '月度會員' },
  credits: 300_000,
  amount: 4990,
  currency: 'CNY',
  method: 'alipay',
  paidAt: '2026-12-06T03:04:05.000Z',
  accountEmail: 'buyer@example.com',
  refund: null,
  issuer: { name: '声韵科技有限公司 Polyvox Ltd', taxId: '91310000MA1FL8XQ3K', address: '', email: 'finance@example.com' },
};

const text = async (pdf: Uint8Array) => (await extractText(pdf, { mergePages: true })).text;

describe('receipts', () => {
  it('formats money in minor units and times in the reader’s zone', () => {
    expect(formatMoney(4990, 'CNY')).toBe('¥49.90 CNY');
    expect(formatMoney(5, 'USD')).toBe('$0.05 USD');
    expect(formatTime('2026-12-06T20:04:05.000Z', 'zh-CN')).toBe('2026-12-07 04:04:05 (UTC+8)');
    expect(formatTime('2026-12-06T20:04:05.000Z', 'en')).toBe('2026-12-06 20:04:05 UTC');
  });

  it('writes Traditional Chinese with the font installed', async () => {
    const fonts = receiptFonts('');
    expect(fonts.source).not.toBeNull();
    const { pdf, locale } = await renderReceipt(data, 'zh-TW', fonts);
    expect(locale).toBe('zh-TW');
    const body = await text(pdf);
    for (const part of ['收據', '支付寶', '月度會員', '¥49.90 CNY', '2026-12-06 11:04:05 (UTC+8)', '声韵科技有限公司'])
      expect(body).toContain(part);
  }, 60_000);

  it('falls back to English in Helvetica when no font with Chinese glyphs is there, never failing', async () => {
    const fonts = receiptFonts('/nonexistent/font.ttc');
    expect(fonts.source).toBeNull();
    const { pdf, locale } = await renderReceipt(data, 'zh-CN', fonts);
    expect(locale).toBe('en');
    const body = await text(pdf);
    for (const part of ['Receipt', 'Alipay', 'Monthly plan', '¥49.90 CNY', 'ord_0test', 'Polyvox Ltd', '91310000MA1FL8XQ3K'])
      expect(body).toContain(part);
    // What Helvetica cannot write is replaced, not dropped silently into an exception.
    expect(body).toContain('???????? Polyvox Ltd');
  });
});
