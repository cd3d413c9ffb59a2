import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_MESSAGES,
  ERROR_STATUS,
  MESSAGE_LOCALES,
  errorMessage,
  formatMessage,
  resolveMessageLocale,
  type MessageLocale,
} from '@polyvox/contracts';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

describe('error catalogue', () => {
  it('is the closed list of API.md with its statuses', () => {
    expect(ERROR_STATUS).toEqual({
      PARAMETERS_NEEDED: 400,
      VALIDATION_FAILED: 400,
      EMAIL_REQUIRED: 400,
      EMAIL_FORMAT: 406,
      CAPTCHA_INCORRECT: 403,
      AGREEMENT_REQUIRED: 400,
      SIGN_IN_FAILED: 400,
      CODE_COOLDOWN: 429,
      EMAIL_TAKEN: 409,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      SECOND_FACTOR_REQUIRED: 401,
      NOT_FOUND: 404,
      INSUFFICIENT_BALANCE: 402,
      KEY_LIMIT_REACHED: 402,
      TEXT_TOO_LONG: 422,
      LANGUAGE_UNSUPPORTED: 422,
      MIX_LIMIT: 422,
      FILE_TOO_LARGE: 413,
      UNSUPPORTED_FILE_TYPE: 415,
      AUDIO_TOO_SHORT: 422,
      AUDIO_TOO_LONG: 422,
      SENSITIVE_WORDS: 422,
      PREVIEW_REQUIRED: 409,
      VOICE_LOCKED: 409,
      PAYMENT_METHOD_UNAVAILABLE: 422,
      ORDER_NOT_PAYABLE: 409,
      RATE_LIMITED: 429,
      ACCOUNT_DISABLED: 403,
      VOICE_PROTECTED: 422,
      PHONE_FORMAT: 406,
      PHONE_TAKEN: 409,
      REAL_NAME_REQUIRED: 403,
      CODE_NOT_REDEEMABLE: 409,
      CONTENT_REFUSED: 422,
      INTERNAL: 500,
    });
    expect(ERROR_CODES).toHaveLength(36);
  });

  it.each(MESSAGE_LOCALES)('has a message for every code in %s, and nothing else', (locale) => {
    expect(Object.keys(ERROR_MESSAGES[locale]).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(ERROR_MESSAGES[locale][code].trim().length, code).toBeGreaterThan(0);
  });

  it('uses the same placeholders in every locale, and translates the Chinese ones', () => {
    for (const code of ERROR_CODES) {
      const en = ERROR_MESSAGES.en[code];
      for (const locale of ['zh-CN', 'zh-TW'] as const) {
        const text = ERROR_MESSAGES[locale][code];
        expect(placeholders(text), `${locale} ${code}`).toEqual(placeholders(en));
        expect(text, `${locale} ${code}`).toMatch(/\p{Script=Han}/u);
        expect(text).not.toBe(en);
      }
    }
  });

  it('keeps the English texts API.md fixes', () => {
    expect(ERROR_MESSAGES.en).toMatchObject({
      PARAMETERS_NEEDED: 'Parameters needed',
      EMAIL_REQUIRED: 'Please enter email',
      EMAIL_FORMAT: 'The email format is incorrect, please re-enter',
      CAPTCHA_INCORRECT: 'Captcha is incorrect, please re-enter',
      AGREEMENT_REQUIRED: 'Please agree to the agreement',
      SIGN_IN_FAILED: 'Sign in failure',
      INSUFFICIENT_BALANCE: 'Insufficient Balance',
      TEXT_TOO_LONG: 'Text exceeds the limit of {maxLength} characters',
      LANGUAGE_UNSUPPORTED: 'This voice does not support the input text language',
      PAYMENT_METHOD_UNAVAILABLE: 'Please try another payment method!',
      INTERNAL: 'Something went wrong, please try again later',
    });
    for (const locale of MESSAGE_LOCALES) expect(placeholders(ERROR_MESSAGES[locale].INTERNAL)).toEqual([]);
  });

  it('fills every placeholder of every message', () => {
    const params = { seconds: 42, field: 'device.os', rule: 'must be one of android, ios', maxLength: 5000, limit: '2 MB' };
    for (const locale of MESSAGE_LOCALES) {
      for (const code of ERROR_CODES) {
        const text = errorMessage(code, locale, params);
        expect(text, `${locale} ${code}`).not.toMatch(/[{}]/);
        for (const name of placeholders(ERROR_MESSAGES[locale][code]))
          expect(text).toContain(
            typeof params[name as keyof typeof params] === 'number'
              ? new Intl.NumberFormat(locale).format(params[name as keyof typeof params] as number)
              : String(params[name as keyof typeof params]),
          );
      }
    }
    expect(errorMessage('CODE_COOLDOWN', 'zh-TW', { seconds: 7 })).toBe('請等待 7 秒後再取得驗證碼');
    expect(errorMessage('TEXT_TOO_LONG', 'en', { maxLength: 5000 })).toBe('Text exceeds the limit of 5,000 characters');
    // Numbers as the reader's locale writes them, as the console's counter shows them.
    expect(errorMessage('TEXT_TOO_LONG', 'zh-CN', { maxLength: 1000 })).toBe('文本超过 1,000 个字符的限制');
    expect(errorMessage('TEXT_TOO_LONG', 'zh-TW', { maxLength: 1000 })).toBe('文字超過 1,000 個字元的限制');
  });

  it('words FORBIDDEN by its reason in every language, and keeps the plain message for any other reason', () => {
    expect(errorMessage('FORBIDDEN', 'en', { reason: 'own_voices', limit: 10 })).toBe(
      'Your plan allows 10 own voices; delete one or upgrade your plan to save another',
    );
    expect(errorMessage('FORBIDDEN', 'zh-CN', { reason: 'api_access' })).toBe('你的套餐不包含 API 访问权限');
    expect(errorMessage('FORBIDDEN', 'zh-TW', { reason: 'own_voices', limit: 1 })).toContain('1 個自己的聲音');
    for (const reason of ['__proto__', 'constructor', 'toString', 'other'])
      expect(errorMessage('FORBIDDEN', 'en', { reason })).toBe('You are not allowed to do this');
    // A reason belongs to its code: another code with the same param keeps its own message.
    expect(errorMessage('NOT_FOUND', 'en', { reason: 'api_access' })).toBe('Not found');
  });

  it('leaves an unknown placeholder visible and ignores extra params', () => {
    expect(formatMessage('wait {seconds} s', {})).toBe('wait {seconds} s');
    expect(formatMessage('{a}{a} {b}', { a: 1, b: 'x', c: 'unused' })).toBe('11 x');
    expect(errorMessage('NOT_FOUND', 'en', { secret: 'hunter2' })).toBe('Not found');
  });
});

describe('resolveMessageLocale', () => {
  it.each<[string | null | undefined, string | null | undefined, MessageLocale]>([
    [undefined, undefined, 'en'],
    ['en', null, 'en'],
    ['zh-CN', null, 'zh-CN'],
    ['zh-cn', null, 'zh-CN'],
    ['zh-Hans', null, 'zh-CN'],
    ['zh-Hans-CN', null, 'zh-CN'],
    ['zh-SG', null, 'zh-CN'],
    ['zh-TW', null, 'zh-TW'],
    ['zh-HK', null, 'zh-TW'],
    ['zh-MO', null, 'zh-TW'],
    ['zh-Hant', null, 'zh-TW'],
    ['zh-Hant-TW', null, 'zh-TW'],
    ['fr', null, 'en'],
    ['en-GB', 'zh-TW', 'en'],
    ['zh-TW', 'zh-CN', 'zh-TW'],
    ['', 'zh-TW', 'zh-TW'],
    [null, 'zh-TW,zh;q=0.9', 'zh-TW'],
    [null, 'zh-CN,zh;q=0.9,en;q=0.8', 'zh-CN'],
    [null, 'fr-FR, fr;q=0.9, zh-TW;q=0.8', 'zh-TW'],
    [null, ' zh-hk ; q=0.7 ', 'zh-TW'],
    [null, 'zh-CN;q=0, zh-TW;q=0.5', 'zh-TW'],
    [null, 'zh-CN;q=0', 'en'],
    [null, 'fr, de;q=0.5', 'en'],
    [null, '*', 'en'],
    [null, '', 'en'],
  ])('lang=%j, Accept-Language=%j → %s', (lang, acceptLanguage, expected) => {
    expect(resolveMessageLocale(lang, acceptLanguage)).toBe(expected);
  });
});

describe('Accept-Language weights', () => {
  it('orders entries by q, not by position', () => {
    expect(resolveMessageLocale(null, 'en;q=0.1, zh-TW')).toBe('zh-TW');
    expect(resolveMessageLocale(null, 'fr, zh-CN;q=0.5, en;q=0.4')).toBe('zh-CN');
    expect(resolveMessageLocale(null, 'zh-TW;q=0, en')).toBe('en');
  });
  it('reads a bare zh from a browser as Simplified Chinese, but not from lang', () => {
    expect(resolveMessageLocale(null, 'zh')).toBe('zh-CN');
    expect(resolveMessageLocale('zh', 'zh-TW')).toBe('en');
  });
});
