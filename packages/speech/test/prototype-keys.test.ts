import { describe, expect, it } from 'vitest';
import { espeakLanguageTags, previewTextFor } from '../src/catalogue/languages.ts';

/** Names every plain object answers through its prototype. */
const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

describe('lookups keyed by user input ignore the prototype', () => {
  it('gives prototype language tags the counting preview and a plain tag', () => {
    expect(previewTextFor('fr')).not.toBe('1, 2, 3, 4, 5.');
    for (const key of PROTO_KEYS) {
      expect(previewTextFor(key), key).toBe('1, 2, 3, 4, 5.');
      expect(
        espeakLanguageTags(`x/${key}`).every((t) => typeof t === 'string'),
        key,
      ).toBe(true);
    }
  });
});
