import { describe, expect, it } from 'vitest';
import { toEnginePhonemes } from '../src/text/engine-phones.ts';
import { xsampaToIpa } from '../src/text/xsampa.ts';

describe('X-SAMPA as IPA', () => {
  it('reads symbols longest first: letters, capitals, digits, backslash and backtick forms, marks and diacritics', () => {
    const ipa = (x: string) => xsampaToIpa(x).ipa;
    expect(ipa('t@"mA:t@U')).toBe('təˈmɑːtəʊ');
    expect(ipa('%kju:b@r"neItiz')).toBe('ˌkjuːbərˈneɪtiz');
    expect(ipa('"Tr\\i:')).toBe('ˈθɹiː');
    expect(ipa('r\\` r` r\\ r')).toBe('ɻ ɽ ɹ r');
    expect(ipa('t_S d_Z')).toBe('t͡ʃ d͡ʒ');
    expect(ipa('{ 3` @` V Q O E I U 6 1 2 9')).toBe('æ ɜ˞ ɚ ʌ ɒ ɔ ɛ ɪ ʊ ɐ ɨ ø œ');
    expect(ipa('p_h k_w n_= s_0 a~ b_< ?\\ X\\')).toBe('pʰ kʷ n̩ s̥ ã ɓ ʕ ħ');
    expect(ipa('g N J L C x')).toBe('ɡ ŋ ɲ ʎ ç x');
    // A hyphen separates segments and is nothing itself.
    expect(ipa('a-b')).toBe('ab');
  });

  it('names what X-SAMPA has not, each once, in order', () => {
    expect(xsampaToIpa('a$bЖ$').unknown).toEqual(['$', 'Ж']);
    expect(xsampaToIpa('ab😀').unknown).toEqual(['😀']);
    expect(xsampaToIpa('t@"mA:t@U').unknown).toEqual([]);
  });

  it('is spoken through IPA by every engine that takes phonemes', () => {
    const { ipa } = xsampaToIpa('t@"mA:toU');
    expect(toEnginePhonemes('espeak', ipa, 'ipa')).toBe("t@m'A:toU");
    expect(toEnginePhonemes('flite', ipa, 'ipa')).toBe('t_ah0_m_aa1_t_ow0');
    expect(toEnginePhonemes('gnuspeech', ipa, 'ipa')).toBe("t_uh.'m_ar.t_uh_uu");
  });
});
