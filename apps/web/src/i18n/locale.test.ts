import { describe, expect, it } from 'vitest';
import { LOCALE_FLAGS } from '@polyvox/contracts';
import { isUiLocale, localeInfo, resolveChoice } from './locale';

describe('resolveChoice', () => {
  it('defaults to zh-CN', () => {
    expect(resolveChoice(null)).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
    expect(resolveChoice('klingon')).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
  });

  it('keeps the three translated locales', () => {
    for (const code of ['en', 'zh-CN', 'zh-TW']) expect(resolveChoice(code)).toEqual({ choice: code, ui: code });
  });

  it('shows English for the other 37 locales while remembering the choice', () => {
    const others = LOCALE_FLAGS.filter((l) => !isUiLocale(l.code));
    expect(others).toHaveLength(37);
    for (const { code } of others) expect(resolveChoice(code)).toEqual({ choice: code, ui: 'en' });
  });

  it('finds flags', () => {
    expect(localeInfo('ja').flag).toBe('🇯🇵');
    expect(localeInfo('zz').code).toBe('zz');
  });
});
