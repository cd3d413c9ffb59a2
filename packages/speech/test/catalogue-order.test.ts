/** The order the library lists a language's eSpeak voices in: the plain voice, then its variants naturally sorted. */
import { describe, expect, it } from 'vitest';
import { espeakVoices } from '../src/catalogue/espeak-voices.ts';

const NATURAL = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function variantLabels(slug: string): string[] {
  return espeakVoices()
    .filter((v) => v.id === `espeak:${slug}` || v.id.startsWith(`espeak:${slug}+`))
    .map((v) => v.name.split(' · ').pop()!);
}

describe('eSpeak variant order', () => {
  it('lists American English as Default, then Female 1, 2, 3, 4 … in natural order', () => {
    const labels = variantLabels('en-us');
    expect(labels[0]).toBe('Default');
    const females = labels.filter((l) => /^Female \d+$/.test(l));
    expect(females).toEqual(['Female 1', 'Female 2', 'Female 3', 'Female 4', 'Female 5']);
    const at = labels.indexOf('Female 1');
    expect(labels.slice(at, at + 5)).toEqual(females);
  });

  it('sorts every language’s variants naturally after its plain voice', () => {
    const bySlug = new Map<string, string[]>();
    for (const v of espeakVoices()) {
      const slug = v.id.slice('espeak:'.length).split('+')[0]!;
      bySlug.set(slug, [...(bySlug.get(slug) ?? []), v.name.split(' · ').pop()!]);
    }
    expect(bySlug.size).toBeGreaterThan(50);
    for (const [slug, labels] of bySlug) {
      expect(labels[0], slug).toBe('Default');
      const rest = labels.slice(1);
      expect(rest, slug).toEqual([...rest].sort((a, b) => NATURAL.compare(a, b)));
    }
  });
});
