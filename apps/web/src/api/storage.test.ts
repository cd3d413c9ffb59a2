import { describe, expect, it } from 'vitest';
import { uuidV4 } from './storage';

describe('uuidV4', () => {
  it('formats random bytes as an RFC 4122 version 4 UUID', () => {
    const id = uuidV4((b) => b.fill(0xff));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidV4((b) => b.fill(0))).toBe('00000000-0000-4000-8000-000000000000');
  });
});
