import { LIMITS } from '@polyvox/contracts';

const minutes = LIMITS.codeTtlSeconds / 60;

const TEXTS: Record<string, { subject: string; body: (code: string) => string }> = {
  en: {
    subject: 'Your Polyvox sign-in code',
    body: (code) =>
      `Your Polyvox sign-in code is ${code}\n\nIt is valid for ${minutes} minutes and can be used once.\nIf you did not ask for it, ignore this message.\n`,
  },
  'zh-CN': {
    subject: 'Polyvox 登录验证码',
    body: (code) =>
      `您的 Polyvox 登录验证码是 ${code}\n\n${minutes} 分钟内有效，仅可使用一次。\n如果这不是您本人的操作，请忽略此邮件。\n`,
  },
  'zh-TW': {
    subject: 'Polyvox 登入驗證碼',
    body: (code) =>
      `您的 Polyvox 登入驗證碼是 ${code}\n\n${minutes} 分鐘內有效，僅可使用一次。\n如果這不是您本人的操作，請忽略此郵件。\n`,
  },
};

export function codeMail(code: string, locale: string): { subject: string; text: string } {
  const t = TEXTS[locale] ?? TEXTS.en!;
  return { subject: t.subject, text: t.body(code) };
}
