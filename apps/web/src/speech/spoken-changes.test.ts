import { describe, expect, it } from 'vitest';
import { arpabetToIpa, readableSpoken, ruleSaid, spokenChanges } from './spoken-changes';

describe('spoken changes', () => {
  it('reads CMU ARPAbet as IPA, stress before the vowel', () => {
    expect(arpabetToIpa('T AH0 M EY1 T OW2')).toBe('təˈmeɪˌtoʊ');
    expect(ruleSaid({ type: 'phoneme', string_to_replace: 'x', phoneme: '/təˈmɑːtoʊ/', alphabet: 'ipa' })).toBe('təˈmɑːtoʊ');
    expect(ruleSaid({ type: 'alias', string_to_replace: 'UN', alias: 'United Nations' })).toBe('United Nations');
  });

  it('finds the changed words as the server matches them: order, case, whole words, no overlap', () => {
    const changes = spokenChanges('The UN met Nguyen; a tomato, un, UNESCO.', [
      { type: 'alias', string_to_replace: 'UN', alias: 'United Nations' },
      { type: 'phoneme', string_to_replace: 'tomato', phoneme: 'T AH0 M EY1 T OW0', alphabet: 'cmu-arpabet' },
      { type: 'phoneme', string_to_replace: 'nguyen', phoneme: 'wɪn', alphabet: 'ipa', case_sensitive: false },
      { type: 'alias', string_to_replace: 'Nguyen met', alias: 'never' },
    ]);
    expect(changes.map((c) => [c.word, c.type, c.said])).toEqual([
      ['UN', 'alias', 'United Nations'],
      ['Nguyen', 'phoneme', 'wɪn'],
      ['tomato', 'phoneme', 'təˈmeɪtoʊ'],
    ]);
  });

  it('shows each [[…]] of the spoken form as its rule’s IPA, in text order', () => {
    const changes = spokenChanges('Nguyen ate a tomato.', [
      { type: 'phoneme', string_to_replace: 'tomato', phoneme: 'təˈmɑːtoʊ', alphabet: 'ipa' },
      { type: 'phoneme', string_to_replace: 'Nguyen', phoneme: 'wɪn', alphabet: 'ipa' },
    ]);
    const shown = readableSpoken("[[w'In]] ate a [[t|@|m'A:|t|o|u]] .", changes);
    expect(shown).toBe('/wɪn/ ate a /təˈmɑːtoʊ/.');
    expect(readableSpoken('a [[x]] b', [])).not.toContain('[[');
  });
});
