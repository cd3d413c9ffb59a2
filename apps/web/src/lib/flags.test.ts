import { describe, expect, it } from 'vitest';
import { LOCALE_FLAGS } from '@polyvox/contracts';
import { flagUrl } from './flags';

describe('locale flags', () => {
  it('draws every locale of the list with a bundled SVG image, not an emoji', () => {
    for (const l of LOCALE_FLAGS) {
      expect(l.flag, l.code).toMatch(/^[a-z]{2}$/);
      expect(flagUrl(l.flag), l.code).toMatch(/\.svg$|^data:image\/svg\+xml/);
    }
  });

  it('knows nothing else, including prototype names', () => {
    expect(flagUrl('zz')).toBeUndefined();
    expect(flagUrl('constructor')).toBeUndefined();
  });
});
