import type { InvoiceType } from '@polyvox/contracts';

type Step = 'requested' | 'issued' | 'rejected';
interface MailFacts {
  orderId: string;
  title: string;
  type: InvoiceType;
  reason?: string | null;
  link: string;
}

const TYPE = {
  en: { normal: 'normal VAT invoice (普通发票)', special: 'special VAT invoice (专用发票)' },
  'zh-CN': { normal: '增值税普通发票', special: '增值税专用发票' },
  'zh-TW': { normal: '增值稅普通發票', special: '增值稅專用發票' },
} as const;

const TEXTS = {
  en: {
    requested: {
      subject: (f: MailFacts) => `We received your invoice request for order ${f.orderId}`,
      body: (f: MailFacts, type: string) =>
        `We received your request for a ${type} titled "${f.title}" for order ${f.orderId}.\nOur finance team issues it within a few working days; you will get another message then.\n\nYour orders: ${f.link}\n`,
    },
    issued: {
      subject: (f: MailFacts) => `Your invoice for order ${f.orderId} is ready`,
      body: (f: MailFacts, type: string) =>
        `The ${type} titled "${f.title}" for order ${f.orderId} has been issued.\nDownload it from your orders page: ${f.link}\n`,
    },
    rejected: {
      subject: (f: MailFacts) => `Your invoice request for order ${f.orderId} needs a correction`,
      body: (f: MailFacts, type: string) =>
        `Your request for a ${type} titled "${f.title}" for order ${f.orderId} could not be issued.\nReason: ${f.reason ?? ''}\n\nCorrect it and request again from your orders page: ${f.link}\n`,
    },
  },
  'zh-CN': {
    requested: {
      subject: (f: MailFacts) => `已收到订单 ${f.orderId} 的发票申请`,
      body: (f: MailFacts, type: string) =>
        `我们已收到订单 ${f.orderId} 的${type}申请，抬头为“${f.title}”。\n财务将在几个工作日内开具，开具后会再次通知你。\n\n我的订单：${f.link}\n`,
    },
    issued: {
      subject: (f: MailFacts) => `订单 ${f.orderId} 的发票已开具`,
      body: (f: MailFacts, type: string) =>
        `订单 ${f.orderId} 的${type}（抬头“${f.title}”）已开具。\n请在订单页下载：${f.link}\n`,
    },
    rejected: {
      subject: (f: MailFacts) => `订单 ${f.orderId} 的发票申请需要修改`,
      body: (f: MailFacts, type: string) =>
        `订单 ${f.orderId} 的${type}申请（抬头“${f.title}”）未能开具。\n原因：${f.reason ?? ''}\n\n请在订单页修改后重新申请：${f.link}\n`,
    },
  },
  'zh-TW': {
    requested: {
      subject: (f: MailFacts) => `已收到訂單 ${f.orderId} 的發票申請`,
      body: (f: MailFacts, type: string) =>
        `我們已收到訂單 ${f.orderId} 的${type}申請，抬頭為「${f.title}」。\n財務將在幾個工作日內開立，開立後會再次通知你。\n\n我的訂單：${f.link}\n`,
    },
    issued: {
      subject: (f: MailFacts) => `訂單 ${f.orderId} 的發票已開立`,
      body: (f: MailFacts, type: string) =>
        `訂單 ${f.orderId} 的${type}（抬頭「${f.title}」）已開立。\n請在訂單頁下載：${f.link}\n`,
    },
    rejected: {
      subject: (f: MailFacts) => `訂單 ${f.orderId} 的發票申請需要修改`,
      body: (f: MailFacts, type: string) =>
        `訂單 ${f.orderId} 的${type}申請（抬頭「${f.title}」）未能開立。\n原因：${f.reason ?? ''}\n\n請在訂單頁修改後重新申請：${f.link}\n`,
    },
  },
} as const;

/** The message of each step of a 发票 request, in the language it was requested in. */
export function invoiceMail(step: Step, locale: string, facts: MailFacts): { subject: string; text: string } {
  const lang = locale === 'zh-CN' || locale === 'zh-TW' ? locale : 'en';
  const t = TEXTS[lang][step];
  return { subject: t.subject(facts), text: t.body(facts, TYPE[lang][facts.type]) };
}
