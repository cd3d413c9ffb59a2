import { describe, expect, it } from 'vitest';
import { errorMessage, LIMITS, MB, sizeLimitText } from '@polyvox/contracts';
import { checkCloneFile } from '../design/rules';
import { en } from '../i18n/en';
import { zhCN } from '../i18n/zh-CN';
import { zhTW } from '../i18n/zh-TW';
import { checkAvatar } from './avatar';
import { formatBytes } from './format';

const MESSAGES = { en, 'zh-CN': zhCN, 'zh-TW': zhTW } as const;
const fill = (template: string, limit: string) => template.replace('{{limit}}', limit);

/** One limit, stated the same everywhere: the hint, the console's own refusal, the server's message. */
describe('size limits', () => {
  it('are decimal megabytes, and the console shows each exactly as the server states it', () => {
    expect(MB).toBe(1_000_000);
    expect(LIMITS.cloneMaxBytes).toBe(20_000_000);
    expect(LIMITS.avatarMaxBytes).toBe(2_000_000);
    for (const ui of Object.keys(MESSAGES)) {
      // Was "21 MB" under a hint of "at most 20 MB": 20 × 1024 × 1024 bytes shown in decimal units.
      expect(formatBytes(LIMITS.cloneMaxBytes, ui)).toBe('20 MB');
      expect(formatBytes(LIMITS.avatarMaxBytes, ui)).toBe('2 MB');
      expect(formatBytes(LIMITS.cloneMaxBytes, ui)).toBe(sizeLimitText(LIMITS.cloneMaxBytes));
    }
  });

  it('the hint and the refusal name the same limit in every language', () => {
    for (const ui of ['en', 'zh-CN', 'zh-TW'] as const) {
      const m = MESSAGES[ui];
      const clone = formatBytes(LIMITS.cloneMaxBytes, ui);
      const hint = fill(m.voiceCloning.dropBody, clone);
      const refusal = errorMessage('FILE_TOO_LARGE', ui, { limit: sizeLimitText(LIMITS.cloneMaxBytes) });
      expect(hint).toContain('20 MB');
      expect(refusal).toContain('20 MB');
      expect(hint).not.toMatch(/\b(19|21) ?MB/);
      const avatar = formatBytes(LIMITS.avatarMaxBytes, ui);
      expect(fill(m.profile.avatarHint, avatar)).toContain('2 MB');
      expect(fill(m.profile.avatarSize, avatar)).toContain('2 MB');
    }
  });

  it('a file the browser shows as over the limit is refused before it is sent; one at the limit is not', () => {
    expect(formatBytes(20_500_000, 'en')).toBe('20.5 MB');
    expect(checkCloneFile({ name: 'a.wav', type: 'audio/wav', size: 20_500_000 })).toBe('size');
    expect(checkCloneFile({ name: 'a.wav', type: 'audio/wav', size: 20_000_000 })).toBeNull();
    expect(checkAvatar({ type: 'image/png', size: 2_000_001 })).toBe('size');
    expect(checkAvatar({ type: 'image/png', size: 2_000_000 })).toBeNull();
  });
});
