import { describe, expect, it } from 'vitest';
import { LIMITS } from '@polyvox/contracts';
import { checkAvatar } from './avatar';

describe('checkAvatar', () => {
  it('accepts png, jpeg and webp up to 2 MB', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/webp'])
      expect(checkAvatar({ type, size: LIMITS.avatarMaxBytes })).toBeNull();
  });

  it('refuses other types and bigger files', () => {
    expect(checkAvatar({ type: 'image/gif', size: 10 })).toBe('type');
    expect(checkAvatar({ type: 'image/svg+xml', size: 10 })).toBe('type');
    expect(checkAvatar({ type: '', size: 10 })).toBe('type');
    expect(checkAvatar({ type: 'image/png', size: LIMITS.avatarMaxBytes + 1 })).toBe('size');
  });
});
