import { describe, expect, it } from 'vitest';
import { parseMobile } from '../../src/accounts/phone.js';
import { AppError } from '../../src/platform/errors.js';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as AppError).code;
  }
  return 'ok';
};

describe('phone numbers in E.164', () => {
  it('reads E.164 anywhere, national numbers in the region named or the language default', () => {
    expect(parseMobile('+86 138-0013-8000', undefined, 'en')).toEqual({ e164: '+8613800138000', region: 'CN' });
    expect(parseMobile('138 0013 8000', undefined, 'zh-CN').e164).toBe('+8613800138000');
    expect(parseMobile('0912 345 678', undefined, 'zh-TW')).toEqual({ e164: '+886912345678', region: 'TW' });
    expect(parseMobile('(201) 555-0123', 'us', 'zh-CN')).toEqual({ e164: '+12015550123', region: 'US' });
    expect(parseMobile('１３８　００１３　８０００', undefined, 'zh-CN').e164).toBe('+8613800138000');
  });

  it('refuses what is not a mobile number with PHONE_FORMAT', () => {
    expect(code(() => parseMobile('13800138000', undefined, 'en'))).toBe('PHONE_FORMAT');
    expect(code(() => parseMobile('12345', undefined, 'zh-CN'))).toBe('PHONE_FORMAT');
    expect(code(() => parseMobile('010 6552 9988', undefined, 'zh-CN'))).toBe('PHONE_FORMAT');
    expect(code(() => parseMobile('+86 138 0013 8000; DROP', undefined, 'en'))).toBe('PHONE_FORMAT');

    expect(code(() => parseMobile('  ', undefined, 'en'))).toBe('PARAMETERS_NEEDED');
  });
});
