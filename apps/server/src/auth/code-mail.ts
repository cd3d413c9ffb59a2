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
      `你的 Polyvox 登录验证码是 ${code}\n\n${minutes} 分钟内有效，仅可使用一次。\n如果这不是你本人的操作，请忽略此邮件。\n`,
  },
  'zh-TW': {
    subject: 'Polyvox 登入驗證碼',
    body: (code) =>
      `你的 Polyvox 登入驗證碼是 ${code}\n\n${minutes} 分鐘內有效，僅可使用一次。\n如果這不是你本人的操作，請忽略此郵件。\n`,
  },
};

export function codeMail(code: string, locale: string): { subject: string; text: string } {
  const t = (Object.hasOwn(TEXTS, locale) ? TEXTS[locale] : undefined) ?? TEXTS.en!;
  return { subject: t.subject, text: t.body(code) };
}

const CHANGED: Record<string, { subject: string; body: (email: string) => string }> = {
  en: {
    subject: 'The email of your Polyvox account was changed',
    body: (email) =>
      `The email of your Polyvox account is being changed to ${email}.\nThis address will no longer sign in to it, and every session of the account has been signed out.\n\nIf you did not do this, contact Polyvox support at once and keep this message.\n`,
  },
  'zh-CN': {
    subject: '你的 Polyvox 账号邮箱已更改',
    body: (email) =>
      `你的 Polyvox 账号邮箱正在更改为 ${email}。\n此后无法再用本邮箱登录该账号，账号的所有登录状态均已退出。\n\n如果这不是你本人的操作，请立即联系 Polyvox 客服并保留此邮件。\n`,
  },
  'zh-TW': {
    subject: '你的 Polyvox 帳號電子郵件已變更',
    body: (email) =>
      `你的 Polyvox 帳號電子郵件正在變更為 ${email}。\n此後無法再用本電子郵件登入該帳號，帳號的所有登入狀態均已登出。\n\n如果這不是你本人的操作，請立即聯絡 Polyvox 客服並保留此郵件。\n`,
  },
};

/** The notice to the address an account leaves, in the language of the request that changed it. */
export function emailChangedMail(newEmail: string, locale: string): { subject: string; text: string } {
  const t = (Object.hasOwn(CHANGED, locale) ? CHANGED[locale] : undefined) ?? CHANGED.en!;
  return { subject: t.subject, text: t.body(newEmail) };
}

const SMS: Record<string, (code: string) => string> = {
  en: (code) => `[Polyvox] Your sign-in code is ${code}, valid for ${minutes} minutes. Do not share it with anyone.`,
  'zh-CN': (code) => `【Polyvox】你的登录验证码是 ${code}，${minutes} 分钟内有效，请勿告诉他人。`,
  'zh-TW': (code) => `【Polyvox】你的登入驗證碼是 ${code}，${minutes} 分鐘內有效，請勿告訴他人。`,
};

/** The text of a code's SMS, in the language of the request that asked for it. */
export function codeSms(code: string, locale: string): string {
  return ((Object.hasOwn(SMS, locale) ? SMS[locale] : undefined) ?? SMS.en!)(code);
}
