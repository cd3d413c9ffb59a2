import { describe, expect, it } from 'vitest';
import { guideUrl } from './guide';

describe('guideUrl', () => {
  it('opens the English site at its root and both Chinese consoles on the Simplified Chinese pages', () => {
    expect(guideUrl('en')).toBe('/guide/');
    expect(guideUrl('zh-CN', 'quick-start/curl')).toBe('/guide/zh/quick-start/curl');
    expect(guideUrl('zh-TW')).toBe('/guide/zh/');
  });
});
