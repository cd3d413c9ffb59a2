/**
 * The defences every XML document a user sends goes through (PLS files, SSML): no DTD (where billion-laughs entities
 * and external references live), no entity expanded but XML's five predefined ones and character references.
 */
import { xsampaToIpa } from '@polyvox/speech';

/** Throws `fail`'s error when the document declares a DOCTYPE or an entity. */
export function refuseDtd(xml: string, fail: () => Error): void {
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) throw fail();
}

/** fast-xml-parser's reasons, in the words the contract's catalogue translates (`XML_PROBLEMS` in its errors). */
const PARSER_REASONS: [RegExp, (...m: string[]) => string][] = [
  [
    /^Expected closing tag '(.+)' \(opened in line (\d+), col (\d+)\) instead of closing tag '(.+)'\.$/,
    (tag, line, column, found) => `the <${tag}> tag opened at line ${line}, column ${column} is not closed before </${found}>`,
  ],
  [/^Unclosed tag '(.+)'\.$/, (tag) => `the <${tag}> tag is not closed`],
  [/^Invalid '\[.*\]' found\.$/, () => 'some tags are not closed'],
  [/^Closing tag '(.+)' has not been opened\.$/, (tag) => `the closing tag </${tag}> has no opening tag`],
  [
    /^Closing tag '(.+)' (?:doesn't have proper closing|can't have attributes or invalid starting)\.$/,
    (tag) => `the closing tag </${tag}> is malformed`,
  ],
  [/^char '(.)' is not expected\.$/, (c) => `the character "${c}" is not allowed here`],
  [/^Invalid space after '<'\.$/, () => 'a tag name must follow "<"'],
  [/^Tag '(.+)' is an invalid name\.$/, (tag) => `"${tag}" is not a valid tag name`],
  [/^Attribute '(.+)' is repeated\.$/, (name) => `the attribute ${name} is repeated`],
  [
    /^(?:boolean attribute '(.+)' is not allowed|attribute (.+) has no value assigned)\.$/,
    (a, b) => `the attribute ${a || b} has no value`,
  ],
  [/^Attribute '(.+)' (?:is an invalid name|has no space in starting)\.$/, (name) => `the attribute "${name}" is malformed`],
  [/^Attributes for '(.+)' have open quote\.$/, (tag) => `an attribute of <${tag}> has no closing quote`],
  [/^(?:Multiple possible root nodes found|Extra text at the end)\.?$/, () => 'there is content after the root element'],
  [/^Start tag expected\.$/, () => 'the document has no element'],
  [/^XML declaration allowed only at the start of the document\.$/, () => 'the XML declaration must open the document'],
];

/** Why the XML validator refused a document, reworded so the contract's catalogue can say it in every language. */
export function xmlProblem(reason: string): string {
  for (const [re, say] of PARSER_REASONS) {
    const m = re.exec(reason);
    if (m) return say(...m.slice(1).map((g) => (g ?? '').slice(0, 40)));
  }
  return 'the markup is malformed';
}

const PREDEFINED = new Map([
  ['lt', '<'],
  ['gt', '>'],
  ['amp', '&'],
  ['quot', '"'],
  ['apos', "'"],
]);

export const ENTITY = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]*);/g;

/** One entity or character reference (`&amp;`, `&#x41;`) as its character; any other entity is refused. */
export function decodeEntity(whole: string, name: string, fail: (rule: string) => Error): string {
  if (name.startsWith('#')) {
    const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    if (code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw fail(`bad character reference ${whole}`);
    return String.fromCodePoint(code);
  }
  const value = PREDEFINED.get(name);
  if (value === undefined) throw fail(`undeclared entity ${whole}`);
  return value;
}

/** XML's predefined entities and character references in `text`; any other entity is refused. */
export function decodeEntities(text: string, fail: (rule: string) => Error): string {
  return text.replace(ENTITY, (whole, name: string) => decodeEntity(whole, name, fail));
}

/** A phoneme alphabet of a PLS file or an SSML `<phoneme>`: `ipa`, `x-sampa` or `cmu-arpabet` (and ARPAbet's other names). */
export function readAlphabet(raw: unknown, fail: (rule: string) => Error): 'ipa' | 'x-sampa' | 'cmu-arpabet' {
  const a = typeof raw === 'string' ? raw.trim().toLowerCase() : 'ipa';
  if (a === 'ipa' || a === '') return 'ipa';
  if (a === 'x-sampa') return 'x-sampa';
  if (a === 'cmu-arpabet' || a === 'x-cmu' || a === 'cmu' || a === 'x-arpabet' || a === 'arpabet') return 'cmu-arpabet';
  throw fail(`alphabet "${a.slice(0, 40)}" is not ipa, x-sampa or cmu-arpabet`);
}

/**
 * A rule's phonemes in an alphabet the rules keep: X-SAMPA becomes IPA, and a symbol X-SAMPA has not is refused,
 * named (`unknown X-SAMPA symbols "Ж", "ω"`).
 */
export function readPhonemes(
  ph: string,
  alphabet: 'ipa' | 'x-sampa' | 'cmu-arpabet',
  fail: (rule: string) => Error,
): { phoneme: string; alphabet: 'ipa' | 'cmu-arpabet' } {
  if (alphabet !== 'x-sampa') return { phoneme: ph, alphabet };
  const { ipa, unknown } = xsampaToIpa(ph);
  if (unknown.length)
    throw fail(
      `unknown X-SAMPA symbols ${unknown
        .slice(0, 10)
        .map((u) => JSON.stringify(u))
        .join(', ')}`,
    );
  return { phoneme: ipa, alphabet: 'ipa' };
}
