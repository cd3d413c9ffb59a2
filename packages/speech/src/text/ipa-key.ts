/**
 * One IPA sound written one way, so a rule's IPA and eSpeak NG's own IPA compare: decomposed (a nasal vowel is its
 * vowel and U+0303 either way), without stress marks and tie bars, with the ASCII `g` as IPA's `ɡ`.
 */
export function ipaKey(ipa: string): string {
  return ipa
    .normalize('NFD')
    .replace(/[ˈˌ']|\u0361|\u035c/g, '')
    .replace(/g/g, 'ɡ')
    .trim();
}
