import { describe, expect, it } from 'vitest';
import { ApiError, describeError, parseRetryAfter } from './errors';

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('60')).toBe(60);
    expect(parseRetryAfter(' 7 ')).toBe(7);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Thu, 01 Jan 2025 00:00:30 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('describeError', () => {
  it("prefers the server's localized message", () => {
    const e = new ApiError({ status: 406, code: 'EMAIL_FORMAT', message: '邮箱格式不正确，请重新输入' });
    expect(describeError(e, 'en', 'net')).toBe('邮箱格式不正确，请重新输入');
  });

  it("falls back to the contract's catalogue for a known code", () => {
    const e = new ApiError({ status: 429, code: 'CODE_COOLDOWN', message: '', retryAfter: 12 });
    expect(describeError(e, 'en', 'net')).toBe('Please wait 12 seconds before requesting another code');
    expect(describeError(new ApiError({ status: 406, code: 'EMAIL_FORMAT', message: '' }), 'zh-TW', 'net')).toBe(
      '電子郵件格式不正確，請重新輸入',
    );
  });

  it('uses the network text for NETWORK and the generic line for anything else', () => {
    expect(describeError(new ApiError({ status: 0, code: 'NETWORK', message: '' }), 'en', 'offline')).toBe('offline');
    expect(describeError(new Error('x'), 'en', 'offline')).toBe('Something went wrong, please try again later');
  });
});
