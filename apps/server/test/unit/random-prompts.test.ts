import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPrompt } from '@polyvox/speech';

const file = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../content/random-texts.json');
const table = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<
  string,
  { name: string; prompt: string; previewText: string }[]
>;

describe('the random prompts offered to try', () => {
  it('exist in English, Simplified and Traditional Chinese', () => {
    for (const lang of ['en', 'zh-CN', 'zh-TW']) expect(table[lang]?.length).toBeGreaterThan(0);
  });

  it.each(Object.entries(table).flatMap(([lang, list]) => list.map((e) => [lang, e.prompt] as const)))(
    '%s: the prompt reader understands "%s"',
    (_lang, prompt) => {
      const traits = readPrompt(prompt);
      // A gender and at least one more trait (age, pitch, pace or a tone word): a voice the reader can build.
      expect(traits.gender === 'male' || traits.gender === 'female').toBe(true);
      const more = [traits.age, traits.pitch, traits.pace].filter((v) => v !== undefined).length + traits.tones.length;
      expect(more).toBeGreaterThan(0);
    },
  );
});
