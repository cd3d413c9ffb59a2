/**
 * W3C Pronunciation Lexicon Specification (PLS 1.0) files: read into rules, and written from them.
 *
 * Reading is defensive: the file's size is bounded by the caller, any DOCTYPE (so any entity declaration: the
 * billion-laughs expansion, an external entity) is refused before the XML is parsed, and the parser expands no
 * entity at all; only XML's five predefined ones and character references are decoded here, in the text itself.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  LIMITS,
  NO_CONTROL_CHARACTERS,
  RULE_CONTROL_CHARACTERS,
  sizeLimitText,
  type PronunciationRule,
} from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { decodeEntities, readAlphabet, readPhonemes, refuseDtd, xmlProblem } from './xml-safety.js';

/** A rule as stored: the contract's shapes, a phoneme rule with the alias its PLS lexeme also gave (its fallback). */
export type StoredRule = PronunciationRule & { alias?: string };

const invalid = (rule: string) => new AppError('VALIDATION_FAILED', { field: 'file', rule });

const decode = (text: string): string => decodeEntities(text, invalid);

type Node = Record<string, unknown> | string;

/** A text node's content, whatever shape the parser gave it. */
function textOf(node: Node | undefined): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return decode(node).trim();
  const t = node['#text'];
  return typeof t === 'string' ? decode(t).trim() : typeof t === 'number' ? String(t) : '';
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ['lexeme', 'grapheme', 'phoneme', 'alias'].includes(name),
});

/** The rules of a PLS file, in its order: one per grapheme of each lexeme. Throws VALIDATION_FAILED naming what is wrong. */
export function parsePls(bytes: Buffer): StoredRule[] {
  if (bytes.length > LIMITS.pronunciationFileMaxBytes)
    throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.pronunciationFileMaxBytes) });
  let xml = bytes.toString('utf8');
  if (xml.charCodeAt(0) === 0xfeff) xml = xml.slice(1);
  // No DTD of any kind: it is where entities (billion laughs) and external references (XXE) are declared.
  refuseDtd(xml, () => invalid('a PLS file may not declare a DOCTYPE or entities'));
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw invalid(`not well-formed XML at line ${valid.err.line}, column ${valid.err.col}: ${xmlProblem(valid.err.msg)}`);
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch (e) {
    throw new AppError('VALIDATION_FAILED', { field: 'file', rule: 'not well-formed XML' }, { cause: e });
  }
  const lexicon = doc['lexicon'];
  if (!lexicon || typeof lexicon !== 'object') throw invalid('the root element must be <lexicon>');
  const lex = lexicon as Record<string, unknown>;
  const defaultAlphabet = lex['@_alphabet'];
  const lexemes = (Array.isArray(lex['lexeme']) ? lex['lexeme'] : []) as Node[];
  const rules: StoredRule[] = [];
  for (const [i, lexeme] of lexemes.entries()) {
    if (typeof lexeme !== 'object') throw invalid(`lexeme ${i + 1} has no grapheme`);
    const graphemes = ((lexeme['grapheme'] ?? []) as Node[]).map(textOf).filter((g) => g !== '');
    if (graphemes.length === 0) throw invalid(`lexeme ${i + 1} has no grapheme`);
    const phonemes = (lexeme['phoneme'] ?? []) as Node[];
    const aliases = ((lexeme['alias'] ?? []) as Node[]).map(textOf).filter((a) => a !== '');
    // What the JSON routes refuse in a rule, a file may not bring either (a character reference such as &#1; included).
    if ([...graphemes, ...aliases, ...phonemes.map(textOf)].some((s) => RULE_CONTROL_CHARACTERS.test(s)))
      throw invalid(`lexeme ${i + 1}: ${NO_CONTROL_CHARACTERS}`);
    const phonemeNode = phonemes.find((p) => textOf(p) !== '');
    const alias = aliases[0];
    if (!phonemeNode && alias === undefined) throw invalid(`lexeme ${i + 1} has neither a phoneme nor an alias`);
    for (const grapheme of graphemes) {
      const tooLong = [grapheme, alias ?? '', phonemeNode ? textOf(phonemeNode) : ''].some(
        (s) => s.length > LIMITS.pronunciationRuleMaxLength,
      );
      if (tooLong) throw invalid(`lexeme ${i + 1}: at most ${LIMITS.pronunciationRuleMaxLength} characters a string`);
      if (phonemeNode) {
        const own = typeof phonemeNode === 'object' ? phonemeNode['@_alphabet'] : undefined;
        const alphabet = readAlphabet(own ?? defaultAlphabet, invalid);
        const read = readPhonemes(textOf(phonemeNode), alphabet, (rule) => invalid(`lexeme ${i + 1}: ${rule}`));
        rules.push({
          type: 'phoneme',
          string_to_replace: grapheme,
          ...read,
          ...(alias !== undefined ? { alias } : {}),
        });
      } else rules.push({ type: 'alias', string_to_replace: grapheme, alias: alias! });
      if (rules.length > LIMITS.pronunciationMaxRules) throw invalid(`at most ${LIMITS.pronunciationMaxRules} rules`);
    }
  }
  if (rules.length === 0) throw invalid('the lexicon has no lexeme');
  return rules;
}

/** Characters XML cannot hold (written as U+FFFD), and a carriage return (written as a reference, so it is kept). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu;

/**
 * Text or an attribute value as XML: escaped, and well-formed whatever it holds. Rules are refused with such
 * characters; one stored before that (or put into the database by hand) still gives a file every parser reads.
 */
function escape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;')
    .replace(NOT_XML, '\uFFFD');
}

/** A version's rules as a PLS file (case sensitivity and word boundaries are not PLS's: they are left out). */
export function writePls(rules: readonly StoredRule[], lang = 'en-US'): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="${escape(lang)}">`,
  ];
  for (const rule of rules) {
    lines.push('  <lexeme>', `    <grapheme>${escape(rule.string_to_replace)}</grapheme>`);
    if (rule.type === 'phoneme') {
      const attr = rule.alphabet === 'ipa' ? '' : ` alphabet="${escape(rule.alphabet)}"`;
      lines.push(`    <phoneme${attr}>${escape(rule.phoneme)}</phoneme>`);
      if (rule.alias !== undefined) lines.push(`    <alias>${escape(rule.alias)}</alias>`);
    } else lines.push(`    <alias>${escape(rule.alias)}</alias>`);
    lines.push('  </lexeme>');
  }
  lines.push('</lexicon>', '');
  return lines.join('\n');
}
