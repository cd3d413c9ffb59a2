import { describe, expect, it } from 'vitest';
import { PREVIEW_TYPES } from '@polyvox/contracts';
import { PREVIEW_TYPE_VALUES } from './types';

describe('design types', () => {
  it("repeat the contract's preview types", () => {
    expect([...PREVIEW_TYPE_VALUES].sort()).toEqual([...PREVIEW_TYPES].sort());
  });
});
