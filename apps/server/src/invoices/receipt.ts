import { PDFDocument, StandardFonts, rgb, type PDFFont } from 'pdf-lib';
import type { MessageLocale } from '@polyvox/contracts';
import type { FontkitFont, ReceiptFonts } from './fonts.js';

export interface ReceiptIssuer {
  name: string;
  taxId: string;
  address: string;
  email: string;
}

export interface ReceiptData {
  orderId: string;
  /** The product's name in each language (a name not given in one falls back to English). */
  productName: Partial<Record<MessageLocale, string>> & { en: string };
  credits: number;
  /** What the payer paid, in minor units of `currency`. */
  amount: number;
  currency: string;
  method: string | null;
  paidAt: string;
  accountEmail: string | null;
  refund: { at: string; amount: number; currency: string } | null;
  issuer: ReceiptIssuer;
}

const TEXTS = {
  en: {
    title: 'Receipt',
    issuer: 'Seller',
    taxId: 'Tax number',
    address: 'Address',
    contact: 'Contact',
    order: 'Order',
    product: 'Product',
    credits: 'Credits',
    amount: 'Amount paid',
    method: 'Payment method',
    paidAt: 'Paid at',
    customer: 'Customer',
    refunded: 'Refunded',
    note: 'This receipt confirms a payment. It is not a tax invoice (发票); request one from the orders page.',
    methods: { alipay: 'Alipay', wechat: 'WeChat Pay', card: 'Card', sandbox: 'Sandbox (test payment)' },
  },
  'zh-CN': {
    title: '收据',
    issuer: '销售方',
    taxId: '纳税人识别号',
    address: '地址',
    contact: '联系方式',
    order: '订单号',
    product: '商品',
    credits: '积分',
    amount: '实付金额',
    method: '支付方式',
    paidAt: '支付时间',
    customer: '购买方',
    refunded: '已退款',
    note: '本收据仅为付款凭证，不作为发票使用；如需发票，请在订单页申请。',
    methods: { alipay: '支付宝', wechat: '微信支付', card: '银行卡', sandbox: '沙箱（测试支付）' },
  },
  'zh-TW': {
    title: '收據',
    issuer: '銷售方',
    taxId: '納稅人識別號',
    address: '地址',
    contact: '聯絡方式',
    order: '訂單編號',
    product: '商品',
    credits: '點數',
    amount: '實付金額',
    method: '付款方式',
    paidAt: '付款時間',
    customer: '購買方',
    refunded: '已退款',
    note: '本收據僅為付款憑證，不作為發票使用；如需發票，請在訂單頁申請。',
    methods: { alipay: '支付寶', wechat: '微信支付', card: '銀行卡', sandbox: '沙盒（測試付款）' },
  },
} as const;

/** Minor units as the currency's symbol and two decimals: ¥49.90, $4.99. */
export function formatMoney(minor: number, currency: string): string {
  const symbol = currency === 'CNY' ? '¥' : currency === 'USD' ? '$' : `${currency} `;
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${symbol}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')} ${currency}`;
}

/** Beijing time for the Chinese receipts, UTC for the English one. */
export function formatTime(iso: string, locale: MessageLocale): string {
  const offset = locale === 'en' ? 0 : 8;
  const d = new Date(Date.parse(iso) + offset * 3_600_000).toISOString();
  return `${d.slice(0, 10)} ${d.slice(11, 19)} ${offset ? '(UTC+8)' : 'UTC'}`;
}

/** What Helvetica (WinAnsi) can write; anything else becomes `?`. */
const latinOnly = (text: string) => text.replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '?');

/**
 * The receipt of a paid order as a one-page A4 PDF in `locale`. With no font with Chinese glyphs installed, the
 * receipt is written in English with PDF's standard Helvetica (characters it cannot write become `?`) and `locale`
 * in the answer says so.
 */
export async function renderReceipt(
  data: ReceiptData,
  wanted: MessageLocale,
  fonts: ReceiptFonts,
): Promise<{ pdf: Uint8Array; locale: MessageLocale }> {
  const face: FontkitFont | null = fonts.face(wanted);
  const locale: MessageLocale = face ? wanted : 'en';
  const t = TEXTS[locale];
  const doc = await PDFDocument.create();
  doc.setTitle(`${t.title} ${data.orderId}`);
  doc.setAuthor(data.issuer.name);
  doc.setProducer('Polyvox');
  doc.setCreationDate(new Date(data.paidAt));
  let font: PDFFont;
  let write: (text: string) => string;
  if (face) {
    // pdf-lib asks its fontkit for the font: the face already parsed (a collection's member) is handed over as is.
    doc.registerFontkit({ create: () => face } as unknown as Parameters<PDFDocument['registerFontkit']>[0]);
    font = await doc.embedFont(new Uint8Array(4), { subset: true });
    write = (text) => text;
  } else {
    font = await doc.embedFont(StandardFonts.Helvetica);
    write = latinOnly;
  }
  const page = doc.addPage([595.28, 841.89]);
  const left = 56;
  let y = 780;
  const grey = rgb(0.35, 0.35, 0.38);
  const line = (text: string, size = 11, color = rgb(0, 0, 0), x = left) => {
    page.drawText(write(text), { x, y, size, font, color });
  };
  line(t.title, 22);
  line(data.issuer.name, 11, grey, 330);
  y -= 36;
  const issuer: [string, string][] = [[t.issuer, data.issuer.name]];
  if (data.issuer.taxId) issuer.push([t.taxId, data.issuer.taxId]);
  if (data.issuer.address) issuer.push([t.address, data.issuer.address]);
  if (data.issuer.email) issuer.push([t.contact, data.issuer.email]);
  const method =
    data.method && Object.hasOwn(t.methods, data.method) ? t.methods[data.method as keyof typeof t.methods] : data.method;
  const rows: [string, string][] = [
    [t.order, data.orderId],
    [t.product, data.productName[locale] ?? data.productName.en],
    [t.credits, data.credits.toLocaleString('en-US')],
    [t.amount, formatMoney(data.amount, data.currency)],
    [t.method, method ?? '-'],
    [t.paidAt, formatTime(data.paidAt, locale)],
  ];
  if (data.accountEmail) rows.push([t.customer, data.accountEmail]);
  if (data.refund)
    rows.push([t.refunded, `${formatMoney(data.refund.amount, data.refund.currency)}  ${formatTime(data.refund.at, locale)}`]);
  for (const block of [issuer, rows]) {
    for (const [label, value] of block) {
      line(label, 10, grey);
      line(value, 11, rgb(0, 0, 0), left + 130);
      y -= 22;
    }
    y -= 10;
    page.drawLine({ start: { x: left, y: y + 16 }, end: { x: 539, y: y + 16 }, thickness: 0.5, color: rgb(0.8, 0.8, 0.82) });
    y -= 12;
  }
  line(t.note, 9, grey);
  return { pdf: await doc.save(), locale };
}
