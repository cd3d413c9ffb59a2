/**
 * A phoneme rule on a French, German, Spanish … eSpeak NG voice is written in that language's phoneme table, and
 * eSpeak NG's own phoneme events show each sound was taken as written: not an English one, and not the table's guess.
 */
import { describe, expect, it } from 'vitest';
import { espeakSynthesize } from '../src/engines/espeak-runtime.ts';
import { planningSpeech } from './support/planning-speech.ts';
import { estimateF0 } from '../src/dsp/f0.ts';
import { ESPEAK_PHONEME_TABLES, ESPEAK_TABLE_OF } from '../src/text/espeak-phoneme-tables.ts';
import { ipaKey } from '../src/text/ipa-key.ts';
import { applyLexicon } from '../src/text/lexicon.ts';
import { espeakTableOf, ipaToEspeak, toEspeakPhonemes } from '../src/text/phonemes.ts';
import { phonemeLanguageOf } from '../src/text/engine-phones.ts';

const said = async (phones: string, voice: string): Promise<string[]> =>
  (await espeakSynthesize(`[[${phones}]]`, { voice, rate: 175, pitch: 50, range: 50 })).phonemes.map(ipaKey).filter(Boolean);

/** A rule's IPA as eSpeak NG's events write it: no syllable marks or tones; eSpeak names aspiration with an `h`. */
const written = (ipa: string) =>
  ipaKey(ipa)
    .replace(/[.˥˦˧˨˩]/g, '')
    .replace(/ʰ/g, 'h');

/** Words of each language's own sounds: front rounded and nasal vowels, uvular and tapped r, ç and x, ɲ, ʎ, ɨ … */
const WORDS: [voice: string, ipa: string][] = [
  ['roa/fr', 'ʁə.ɡaʁ'],
  ['roa/fr', 'bɔ̃.ʒuʁ'],
  ['roa/fr', 'ɑ̃.fɑ̃'],
  ['roa/fr', 'ly.mjɛʁ'],
  ['roa/fr', 'ʃə.vø'],
  ['roa/fr', 'œ̃'],
  ['gmw/de', 'ˈɪç'],
  ['gmw/de', 'ˈbax'],
  ['gmw/de', 'ˈkʏ.çə'],
  ['gmw/de', 'ˈʃøːn'],
  ['gmw/de', 'ˈɡʁyːn'],
  ['gmw/de', 'ˈpfɛʁt'],
  ['gmw/de', 'ˈhɑː.bn̩'],
  ['roa/es', 'ˈpe.ro'],
  ['roa/es', 'ˈpe.ɾo'],
  ['roa/es', 'ˈni.ɲo'],
  ['roa/es', 'ˈxo.ta'],
  ['roa/es', 'θeˈβo.ʎa'],
  ['roa/es-419', 'ˈka.ʎe'],
  ['roa/it', 'ˈpit.tsa'],
  ['roa/it', 'ˈʎʎ'],
  ['roa/it', 'ˈdʒɛ.lo'],
  ['roa/pt-BR', 'ˈʁa.tu'],
  ['roa/pt', 'ˈʃɛ.ɡa'],
  ['gmw/nl', 'ˈɣoː.də'],
  ['gmw/nl', 'ˈœy'],
  ['gmw/nl', 'sxeː.vəˈnɪ.ŋən'],
  ['zle/ru', 'ˈxo.ro.ʂo'],
  ['zle/ru', 'ˈmʲa.sʲɪ'],
  ['zlw/pl', 'ˈʂt͡ʂɛ.bʐɛ.ɕɛ'],
  ['zlw/pl', 'ˈrɨ.ba'],
  ['zlw/pl', 'vɔ̃s'],
  ['zlw/pl', 'ˈʑɛm.ja'],
  ['sit/cmn', 'ma˥'],
  ['sit/cmn', 'pʰiɛn˧˥'],
  ['sit/cmn', 'tɕʰi˥˩'],
];

describe('phoneme rules on eSpeak NG voices of other languages', () => {
  it('finds the table of a voice by its identifier or its language tag', () => {
    expect(espeakTableOf('roa/fr')).toBe('fr');
    expect(espeakTableOf('fr-FR')).toBe('fr');
    expect(espeakTableOf('de_DE')).toBe('de');
    expect(espeakTableOf('pt-BR')).toBe('pt');
    expect(espeakTableOf('roa/pt')).toBe('pt-pt');
    expect(espeakTableOf('zh-CN')).toBe('cmn');
    // English keeps its own table, as does a language the tables leave out.
    expect(espeakTableOf('en-US')).toBeUndefined();
    expect(espeakTableOf('gmw/en-US')).toBeUndefined();
    expect(espeakTableOf('constructor')).toBeUndefined();
  });

  it.each(WORDS)('%s speaks %s as written', async (voice, ipa) => {
    const converted = toEspeakPhonemes(ipa, 'ipa', voice);
    expect(converted?.nearest).toBe(false);
    expect((await said(converted!.phones, voice)).join('')).toBe(written(ipa));
  });

  it('would have spoken several of them as English sounds through the English table', async () => {
    // The same IPA through the English mnemonics, on the same voices: eSpeak NG speaks other sounds.
    const wrong = [];
    for (const [voice, ipa] of WORDS.slice(0, 12)) {
      const english = ipaToEspeak(ipa);
      if (english === null || (await said(english, voice)).join('') !== written(ipa)) wrong.push(ipa);
    }
    expect(wrong.length).toBeGreaterThanOrEqual(6);
  });

  it('holds, for every sound of the main languages, the mnemonic eSpeak NG names that sound', async () => {
    const voices: Record<string, string> = { fr: 'roa/fr', de: 'gmw/de', es: 'roa/es', it: 'roa/it', pl: 'zlw/pl', ru: 'zle/ru' };
    let checked = 0;
    for (const [table, voice] of Object.entries(voices)) {
      expect(ESPEAK_TABLE_OF[voice]).toBe(table);
      const mismatched: string[] = [];
      for (const pair of ESPEAK_PHONEME_TABLES[table]!.split('|')) {
        const [ipa, mnemonic] = pair.split(' ') as [string, string];
        // A vowel stressed alone, a consonant before a stressed vowel: where the generator heard it.
        const vowel = /^(?:[aeiouyæøœɐɑɒɔəɘɛɜɞɤɨɪɯɵʉʊʌʏ]|.\u0329$)/.test(ipa);
        const heard = await said(vowel ? `'${mnemonic}` : `${mnemonic}'a`, voice);
        if (heard[0] !== ipa) mismatched.push(`${ipa}=${mnemonic}→${heard[0]}`);
        checked++;
      }
      expect(mismatched, table).toEqual([]);
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('speaks a sound the language has not as its nearest one, and says so', async () => {
    // Russian has no æ: eSpeak NG's Russian a; German's -er vowel ɐ is eSpeak's ɜ there.
    const ru = toEspeakPhonemes('ˈmʲæ.sʲɪ', 'ipa', 'zle/ru')!;
    expect(ru.nearest).toBe(true);
    expect((await said(ru.phones, 'zle/ru')).join('')).toBe('mʲasʲɪ');
    const de = toEspeakPhonemes('ˈmʏ.lɐ', 'ipa', 'gmw/de')!;
    expect(de.nearest).toBe(true);
    expect((await said(de.phones, 'gmw/de')).join('')).toBe('mʏlɜ');
    // A long vowel the table has short only: the nearest long one (German's long a is eSpeak NG's ɑː).
    const long = toEspeakPhonemes('ˈhaː.bn̩', 'ipa', 'gmw/de')!;
    expect(long.nearest).toBe(true);
    expect((await said(long.phones, 'gmw/de')).join('')).toBe('hɑːbn̩');
    // A nasal vowel the table cannot take (eSpeak NG's Portuguese ɐ̃ does not parse as phonemes): the vowel alone.
    expect(toEspeakPhonemes('ˈsɐ̃.tu', 'ipa', 'roa/pt-BR')?.nearest).toBe(true);
    // The rule's words are reported as a fallback, and still spoken with the phonemes.
    const rule = { type: 'phoneme' as const, string_to_replace: 'Mässi', phoneme: 'ˈmʲæ.sʲɪ', alphabet: 'ipa' };
    const applied = applyLexicon('Mässi kommt.', [rule], { phonemes: 'espeak', language: 'zle/ru' });
    expect(applied.fallbacks).toEqual(['Mässi']);
    expect(applied.restore(applied.text)).toContain(`[[${ru.phones}]]`);
    const exact = applyLexicon('Ich', [{ ...rule, string_to_replace: 'Ich', phoneme: 'ˈɪç' }], {
      phonemes: 'espeak',
      language: 'de',
    });
    expect(exact.fallbacks).toEqual([]);
  });

  it('gives Mandarin its tones: the pitch of a falling tone falls and of a rising one rises', async () => {
    const contour = async (ipa: string) => {
      const phones = toEspeakPhonemes(ipa, 'ipa', 'sit/cmn')!.phones;
      const out = await espeakSynthesize(`[[${phones}]]`, { voice: 'sit/cmn', rate: 120, pitch: 50, range: 50 });
      const track = estimateF0(out.samples, 22050, { minHz: 60, maxHz: 400 }).track.filter((f) => f > 0);
      const fifth = Math.max(1, Math.floor(track.length / 5));
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const end = mean(track.slice(-fifth));
      // In semitones: the end against the start (a rise) and against the highest point (a fall).
      return { rise: 12 * Math.log2(end / mean(track.slice(0, fifth))), drop: 12 * Math.log2(end / Math.max(...track)) };
    };
    const high = await contour('ma˥');
    const rising = await contour('ma˧˥');
    const falling = await contour('ma˥˩');
    expect(falling.drop).toBeLessThan(-1.2);
    expect(falling.drop).toBeLessThan(high.drop - 1);
    expect(rising.rise).toBeGreaterThan(1.5);
    expect(rising.rise).toBeGreaterThan(high.rise + 1);
  });
});

describe('a request with a phoneme rule on a voice of another language', () => {
  const speech = planningSpeech();

  const plan = (voiceId: string, text: string, word: string, phoneme: string) =>
    speech().prepare({
      text,
      voiceId,
      format: 'pcm',
      checkLanguage: false,
      lexicon: [{ type: 'phoneme', string_to_replace: word, phoneme, alphabet: 'ipa' }],
    });

  it('takes the voice language from an eSpeak NG voice, else from its languages', () => {
    expect(phonemeLanguageOf({ engine: 'espeak', variant: 'roa/fr+m3', languages: ['fr'] })).toBe('roa/fr');
    expect(phonemeLanguageOf({ engine: 'sherpa', languages: ['de-DE'] })).toBe('de-DE');
  });

  it('is planned in the voice language and spoken as written', async () => {
    const p = plan('espeak:fr', 'Le Rouergue.', 'Rouergue', 'ʁu.ɛʁɡ');
    expect(p.pronunciationFallbacks).toEqual([]);
    const phones = /\[\[([^\]]+)\]\]/.exec(p.text)![1]!;
    expect(phones).toBe(toEspeakPhonemes('ʁu.ɛʁɡ', 'ipa', 'roa/fr')!.phones);
    expect((await said(phones, p.voice.variant!)).join('')).toBe('ʁuɛʁɡ');
    // A sound Russian has not: spoken with the nearest, and the word named as a fallback.
    expect(plan('espeak:ru', 'Мяся.', 'Мяся', 'ˈmʲæ.sʲɪ').pronunciationFallbacks).toEqual(['Мяся']);
  });
});
