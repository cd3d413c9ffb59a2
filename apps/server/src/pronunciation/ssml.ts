/**
 * SSML (the subset docs/pronunciation.md lists) and ElevenLabs' `<break time="1.5s" />` in plain text, read into the
 * markup document the speech plan renders (`MarkupDocument`): the spoken text, where each of its characters came
 * from, the parts with their voice settings and pauses, the elements spoken otherwise (phoneme, sub, say-as), marks.
 *
 * An SSML document is untrusted input, read as a PLS file is: a size limit, no DOCTYPE or entity declaration, no
 * entity expanded but XML's five and character references. It is read once, by a streaming XML parser (`saxes`, which
 * checks that it is well-formed and says where it is not): each of its tags as it comes, keeping the offset in the
 * request of every character, which timings need to map the audio back to the request's own text.
 */
import { SaxesParser } from 'saxes';
import { LIMITS } from '@polyvox/contracts';
import { countCharacters, SAY_AS_KINDS, SILENT_DB, type MarkupDocument, type SayAsKind } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import { decodeEntity, ENTITY, readAlphabet, readPhonemes, refuseDtd } from './xml-safety.js';
import { saxesProblem } from './ssml-problems.js';
import { Builder } from './ssml-builder.js';
import {
  EMPHASIS,
  PLAIN_MAX_BREAK_MS,
  readPitch,
  readRate,
  readTime,
  readVolume,
  SSML_MAX_BREAK_MS,
  STRENGTHS,
  type Settings,
} from './ssml-values.js';
import { withinPauseBudget, type PauseTally } from './pause-budget.js';

export type TextType = 'text' | 'ssml';

const invalid = (rule: string, where?: { line: number; column: number }) =>
  new AppError('VALIDATION_FAILED', { field: 'text', rule, ...(where ?? {}) });

/**
 * Text that opens with `<speak>` (after an XML declaration, if any) is SSML whatever `text_type` says; so is text that
 * opens with a declaration or a DOCTYPE, which is then refused rather than read aloud.
 */
const SPEAK_START = /^\s*(?:<\?xml|<!DOCTYPE|<speak[\s/>])/i;

export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  return { line, column: offset - lineStart + 1 };
}

interface Open {
  name: string;
  settings: Settings;
  /** Where its content starts in the written text (phoneme, sub, say-as). */
  writtenFrom: number;
  attrs: Map<string, string>;
  at: number;
}

const CONTAINERS = new Set(['speak', 'p', 's', 'prosody', 'emphasis', 'lang']);
/** Elements whose content is their text alone, spoken otherwise. */
const LEAVES = new Set(['phoneme', 'sub', 'say-as']);
const EMPTY = new Set(['break', 'mark']);

/** Reads an SSML document; `baseHz`: the voice's pitch, which `<prosody pitch="+20Hz">` is relative to. */
export function parseSsml(text: string, baseHz = 120): MarkupDocument {
  if (text.length > LIMITS.ssmlMaxLength) throw invalid(`must be at most ${LIMITS.ssmlMaxLength} characters long`);
  refuseDtd(text, () => invalid('an SSML document may not declare a DOCTYPE or entities'));
  // An XML declaration must open the document: whitespace before it is not the user's point, so it is not checked.
  const lead = /^\s*(?=<\?xml)/.exec(text)?.[0].length ?? 0;
  const b = new Builder();
  const stack: Open[] = [];
  const settings = (): Settings => stack.at(-1)?.settings ?? {};
  const fail = (offset: number, rule: (where: string) => string) => {
    const where = positionOf(text, offset);
    return invalid(rule(`at line ${where.line}, column ${where.column}`), where);
  };
  let last = 0;
  let rootSeen = false;

  const addText = (from: number, to: number, raw: string, cdata = false) => {
    if (!raw) return;
    const top = stack.at(-1);
    if (!top) {
      if (raw.trim()) throw fail(from, (w) => `the root element must be <speak> (text ${w})`);
      b.put(from, to, '');
      return;
    }
    if (cdata) {
      b.put(from, to, raw);
      return;
    }
    let i = 0;
    for (const m of raw.matchAll(ENTITY)) {
      b.put(from + i, from + m.index, raw.slice(i, m.index));
      const ch = decodeEntity(m[0], m[1]!, (rule) => fail(from + m.index, (w) => `${rule} ${w}`));
      b.put(from + m.index, from + m.index + m[0].length, ch);
      i = m.index + m[0].length;
    }
    b.put(from + i, to, raw.slice(i));
  };

  /** Where a tag opened, by its place on the stack: a tag left open is named with it. */
  const opened: number[] = [];
  /** Markup from `at` to `end` (a tag, a comment, a declaration): the text before it, then the markup as nothing. */
  const markup = (at: number, end: number): void => {
    addText(last, at, text.slice(last, at));
    b.put(at, end, '');
    last = end;
  };
  const parser = new SaxesParser({ position: true });
  /** The offset in `text` of the character the parser has just read. */
  const here = (): number => lead + parser.position - 1;
  const start = (token: string): number => text.lastIndexOf(token, here());
  const malformed = (offset: number, reason: string) => {
    const where = positionOf(text, offset);
    return invalid(`not well-formed SSML at line ${where.line}, column ${where.column}: ${reason}`, where);
  };
  let tagAt = 0;
  parser.on('opentagstart', () => {
    tagAt = start('<');
  });
  parser.on('opentag', (tag) => {
    markup(tagAt, lead + parser.position);
    const name = tag.name.replace(/^[^:]*:/, '');
    const attrs = new Map<string, string>();
    for (const [key, value] of Object.entries(tag.attributes as Record<string, string>)) attrs.set(key, value.trim());
    const parent = stack.at(-1);
    if (!parent) {
      if (name !== 'speak' || rootSeen)
        throw fail(tagAt, (w) => `the root element must be <speak> (<${name.slice(0, 40)}> ${w})`);
      rootSeen = true;
    } else if (LEAVES.has(parent.name))
      throw fail(tagAt, (w) => `<${parent.name}> takes text only (<${name.slice(0, 40)}> ${w})`);
    if (!CONTAINERS.has(name) && !LEAVES.has(name) && !EMPTY.has(name))
      throw fail(tagAt, (w) => `unsupported SSML tag <${name.slice(0, 40)}> ${w}`);
    stack.push(openElement(name, attrs, tagAt));
    opened.push(tagAt);
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) {
      const at = start('</');
      const end = lead + parser.position;
      const closing = text.slice(at + 2, end - 1).trim();
      // The parser closes the tags left open on its way to the one this closes: the first of them is the fault.
      if (closing !== tag.name) {
        const o = positionOf(text, opened.at(-1)!);
        throw malformed(
          at,
          `the <${tag.name.slice(0, 40)}> tag opened at line ${o.line}, column ${o.column} is not closed before </${closing.slice(0, 40)}>`,
        );
      }
      markup(at, end);
    }
    opened.pop();
    closeElement(stack.pop()!);
  });
  parser.on('comment', () => {
    // Told before its closing '>' is read.
    const at = start('<!--');
    markup(at, text.indexOf('-->', at + 4) + 3);
  });
  parser.on('processinginstruction', () => markup(start('<?'), lead + parser.position));
  parser.on('xmldecl', () => markup(start('<?'), lead + parser.position));
  parser.on('cdata', () => {
    // Its content is text as written; the delimiters are markup.
    const at = start('<![CDATA[');
    const end = lead + parser.position;
    markup(at, at + 9);
    addText(at + 9, end - 3, text.slice(at + 9, end - 3), true);
    b.put(end - 3, end, '');
    last = end;
  });
  parser.on('error', (e) => {
    const reason = e.message.replace(/^\d+:\d+: /, '');
    // Entities are read with the text (above), where an unknown one is named.
    if (/entity/.test(reason)) return;
    if (reason.startsWith('unclosed tag: ')) {
      const name = reason.slice('unclosed tag: '.length);
      throw malformed(opened.at(-1) ?? here(), `the <${name.slice(0, 40)}> tag is not closed`);
    }
    const at = here();
    throw malformed(at, saxesProblem(reason, text, at, rootSeen));
  });
  parser.write(lead ? text.slice(lead) : text).close();
  addText(last, text.length, text.slice(last));
  b.cut(settings());

  function attr(
    open: { name: string; attrs: Map<string, string>; at: number },
    key: string,
    required = false,
  ): string | undefined {
    const value = open.attrs.get(key);
    if (value === undefined && required) throw fail(open.at, (w) => `<${open.name}> needs ${key} ${w}`);
    return value;
  }
  function bad(open: { name: string; at: number }, key: string, value: string): AppError {
    return fail(open.at, (w) => `bad value "${value.slice(0, 40)}" for ${key} of <${open.name}> ${w}`);
  }

  function openElement(name: string, attrs: Map<string, string>, at: number): Open {
    const outer = settings();
    const open: Open = { name, settings: outer, writtenFrom: b.written.length, attrs, at };
    const lang = attrs.get('xml:lang') ?? attrs.get('lang');
    switch (name) {
      case 'speak':
      case 'lang':
        if (name === 'lang' && lang === undefined) throw fail(at, (w) => `<lang> needs xml:lang ${w}`);
        if (lang !== undefined && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(lang)) throw bad(open, 'xml:lang', lang);
        if (lang) {
          b.cut(outer);
          open.settings = { ...outer, language: lang };
        }
        break;
      case 'p':
      case 's':
        b.cut(outer);
        break;
      case 'prosody': {
        const next: Settings = { ...outer };
        const rate = attr(open, 'rate');
        const pitch = attr(open, 'pitch');
        const volume = attr(open, 'volume');
        if (rate !== undefined) {
          const r = readRate(rate);
          if (r === undefined) throw bad(open, 'rate', rate);
          next.rate = (outer.rate ?? 1) * r;
        }
        if (pitch !== undefined) {
          const p = readPitch(pitch, baseHz);
          if (p === undefined) throw bad(open, 'pitch', pitch);
          next.pitch = (outer.pitch ?? 0) + p;
        }
        if (volume !== undefined) {
          const v = readVolume(volume);
          if (v === undefined) throw bad(open, 'volume', volume);
          next.volume = (outer.volume ?? 0) + v;
        }
        if (next.volume !== undefined) next.volume = Math.max(SILENT_DB, next.volume);
        b.cut(outer);
        open.settings = next;
        break;
      }
      case 'emphasis': {
        const level = attr(open, 'level') ?? 'moderate';
        const e = EMPHASIS.get(level);
        if (!e) throw bad(open, 'level', level);
        b.cut(outer);
        open.settings = {
          ...outer,
          ...(e.rate ? { rate: (outer.rate ?? 1) * e.rate } : {}),
          ...(e.pitch ? { pitch: (outer.pitch ?? 0) + e.pitch } : {}),
          ...(e.volume ? { volume: (outer.volume ?? 0) + e.volume } : {}),
        };
        break;
      }
      case 'phoneme': {
        const where = (rule: string) => fail(at, (w) => `${rule} ${w}`);
        const read = readPhonemes(attr(open, 'ph', true)!, readAlphabet(attr(open, 'alphabet') ?? 'ipa', where), (rule) =>
          where(`${rule} in ph of <phoneme>`),
        );
        open.attrs.set('ph', read.phoneme);
        open.attrs.set('alphabet', read.alphabet);
        break;
      }
      case 'sub':
        attr(open, 'alias', true);
        break;
      case 'say-as': {
        const kind = attr(open, 'interpret-as', true)!;
        if (!(SAY_AS_KINDS as readonly string[]).includes(kind)) throw bad(open, 'interpret-as', kind);
        break;
      }
      case 'break': {
        const time = attr(open, 'time');
        const strength = attr(open, 'strength');
        let ms = STRENGTHS.get('medium')!;
        if (time !== undefined) {
          const t = readTime(time);
          if (t === undefined || t > SSML_MAX_BREAK_MS) throw bad(open, 'time', time);
          ms = t;
        } else if (strength !== undefined) {
          const s = STRENGTHS.get(strength);
          if (s === undefined) throw bad(open, 'strength', strength);
          ms = s;
        }
        b.cut(outer, ms);
        break;
      }
      case 'mark': {
        const markName = attr(open, 'name', true)!;
        b.doc.marks.push({ name: markName.slice(0, 200), at });
        break;
      }
    }
    return open;
  }

  function closeElement(open: Open): void {
    const from = open.writtenFrom;
    const to = b.written.length;
    switch (open.name) {
      case 'speak':
      case 'lang':
      case 'prosody':
      case 'emphasis':
        b.cut(open.settings);
        break;
      case 's':
        b.cut(open.settings, 0, 'sentence');
        break;
      case 'p':
        b.cut(open.settings, 0, 'paragraph');
        break;
      case 'phoneme':
        if (to > from)
          b.doc.rules.push({
            from,
            to,
            rule: {
              type: 'phoneme',
              string_to_replace: b.written.slice(from, to),
              phoneme: open.attrs.get('ph')!,
              // Read above: X-SAMPA is IPA by now.
              alphabet: open.attrs.get('alphabet') === 'cmu-arpabet' ? 'cmu-arpabet' : 'ipa',
            },
          });
        break;
      case 'sub': {
        const alias = open.attrs.get('alias')!;
        // The alias is what is spoken, so what is priced in place of the words it stands for.
        b.charged = b.charged.slice(0, b.charged.length - (to - from)) + alias;
        b.doc.rules.push({ from, to, rule: { type: 'alias', string_to_replace: b.written.slice(from, to), alias } });
        break;
      }
      case 'say-as': {
        const format = open.attrs.get('format');
        if (to > from)
          b.doc.rules.push({
            from,
            to,
            sayAs: { kind: open.attrs.get('interpret-as') as SayAsKind, ...(format ? { format } : {}) },
          });
        break;
      }
    }
  }

  return { written: b.written, characters: countCharacters(b.charged), ...b.doc };
}

const PLAIN_BREAK = /<break\s+time\s*=\s*(["'])\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*(s|ms)\s*\1\s*\/?>/gi;

/** ElevenLabs' `<break time="1.5s" />` in plain text (at most 3 s each); undefined when the text has none. */
export function plainBreaks(text: string): MarkupDocument | undefined {
  const b = new Builder();
  let last = 0;
  for (const m of text.matchAll(PLAIN_BREAK)) {
    b.put(last, m.index, text.slice(last, m.index));
    b.put(m.index, m.index + m[0].length, '');
    const ms = Number(m[2]) * (m[3]!.toLowerCase() === 's' ? 1000 : 1);
    b.cut({}, Math.min(PLAIN_MAX_BREAK_MS, ms));
    last = m.index + m[0].length;
  }
  if (last === 0) return undefined;
  b.put(last, text.length, text.slice(last));
  b.cut({});
  return { written: b.written, characters: countCharacters(b.charged), ...b.doc };
}

/**
 * A request's text as markup: SSML (`text_type: "ssml"`, or text that opens with `<speak>`), plain text's breaks, or
 * none; its pauses held to the budget (`pause-budget.ts`; `spent`: a stream's earlier pieces), so every route refuses
 * the same documents before any work.
 */
export function readMarkup(text: string, textType?: TextType, baseHz?: number, spent?: PauseTally): MarkupDocument | undefined {
  const doc = textType === 'ssml' || SPEAK_START.test(text) ? parseSsml(text, baseHz) : plainBreaks(text);
  return doc && withinPauseBudget(doc, spent);
}
