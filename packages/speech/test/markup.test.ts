import { describe, expect, it } from 'vitest';
import { makePlan, type PlanContext } from '../src/pipeline/plan.ts';
import { buildTimings, mapThroughReplacements } from '../src/pipeline/timings.ts';
import { composeSpans, type MarkupDocument } from '../src/text/markup.ts';
import { sayAs } from '../src/text/say-as.ts';
import { DEFAULT_PROFILE, type VoiceInfo } from '../src/core/types.ts';

const voice = (id: string, engine: string, variant: string, languages: string[]): VoiceInfo => ({
  id,
  name: id,
  gender: 'female',
  languages,
  model: engine,
  engine,
  variant,
  profile: DEFAULT_PROFILE,
  previewText: 'Hi.',
});
const EN = voice('espeak:en-us+f2', 'espeak', 'en-us+f2', ['en-US']);
const FR = voice('espeak:fr', 'espeak', 'fr', ['fr-FR']);
const FLITE = voice('flite:slt', 'flite', 'slt', ['en-US']);
const ctx: PlanContext = {
  findVoice: () => undefined,
  findLanguageVoice: (engine, language) => (engine === 'espeak' && language.startsWith('fr') ? FR : undefined),
  maxTextLength: 5000,
};

/** A document without tags (nothing to map back): its text, its parts, the elements spoken otherwise. */
const untagged = (written: string, parts: MarkupDocument['parts'], rules: MarkupDocument['rules'] = []): MarkupDocument => ({
  written,
  characters: written.replace(/\s/g, '').length,
  spans: [],
  rules,
  parts,
  marks: [],
});

/** A document as the server reads `<speak>Hello <break time="1s"/><sub alias="United Nations">UN</sub> at 5.</speak>`. */
function sample(): { text: string; doc: MarkupDocument } {
  const text = '<speak>Hello <break time="1s"/><sub alias="United Nations">UN</sub> at 5.</speak>';
  const brk = text.indexOf('<break');
  const sub = text.indexOf('<sub');
  const close = text.indexOf('</sub>');
  const end = text.indexOf('</speak>');
  return {
    text,
    doc: {
      written: 'Hello UN at 5.',
      characters: 'HelloUnitedNationsat5.'.length,
      spans: [
        { from: 0, to: 7, spokenFrom: 0, spokenTo: 0 },
        { from: brk, to: sub, spokenFrom: 6, spokenTo: 6 },
        { from: sub, to: sub + '<sub alias="United Nations">'.length, spokenFrom: 6, spokenTo: 6 },
        { from: close, to: close + 6, spokenFrom: 8, spokenTo: 8 },
        { from: end, to: text.length, spokenFrom: 14, spokenTo: 14 },
      ],
      rules: [{ from: 6, to: 8, rule: { type: 'alias', string_to_replace: 'UN', alias: 'United Nations' } }],
      parts: [{ end: 6, pauseMs: 1000 }, { end: 14 }],
      marks: [{ name: 'un', at: sub }],
    },
  };
}

describe('a marked-up plan', () => {
  it('speaks each part apart, the pause after its last sentence, the markup priced by its spoken characters', () => {
    const { text, doc } = sample();
    const plan = makePlan({ text, voice: EN, markup: doc }, ctx);
    expect(plan.sentences).toEqual(['Hello', 'United Nations at five.']);
    expect(plan.parts).toEqual([{ pauseMs: 1000 }, {}]);
    expect(plan.characters).toBe(doc.characters);
    expect(plan.text).toBe('Hello United Nations at five.');
  });

  it("applies the dictionaries inside the markup's text, never over an element's own rule", () => {
    const { text, doc } = sample();
    const plan = makePlan(
      {
        text,
        voice: EN,
        markup: doc,
        lexicon: [
          { type: 'alias', string_to_replace: 'Hello', alias: 'Howdy' },
          { type: 'alias', string_to_replace: 'UN', alias: 'U.N.' },
        ],
      },
      ctx,
    );
    expect(plan.sentences).toEqual(['Howdy', 'United Nations at five.']);
  });

  it('a phoneme element: each engine’s own phonemes, a fallback for a sound it lacks', () => {
    const phoneme = (ph: string) =>
      untagged(
        'A tomato.',
        [{ end: 9 }],
        [{ from: 2, to: 8, rule: { type: 'phoneme', string_to_replace: 'tomato', phoneme: ph, alphabet: 'ipa' } }],
      );
    const doc = phoneme('təˈmɑːtoʊ');
    const espeak = makePlan({ text: doc.written, voice: EN, markup: doc }, ctx);
    expect(espeak.sentences[0]).toMatch(/^A \[\[t@m'A:toU\]\] ?\.$/);
    expect(espeak.pronunciationFallbacks).toEqual([]);
    const flite = makePlan({ text: doc.written, voice: FLITE, markup: doc }, ctx);
    expect(flite.sentences[0]).toMatch(/^A \[\[t_ah0_m_aa1_t_ow0\]\] ?\.$/);
    expect(flite.pronunciationFallbacks).toEqual([]);
    const foreign = phoneme('toˈmaxo');
    const lacking = makePlan({ text: foreign.written, voice: FLITE, markup: foreign }, ctx);
    expect(lacking.sentences).toEqual(['A tomato.']);
    expect(lacking.pronunciationFallbacks).toEqual(['tomato']);
  });

  it('prosody, volume and a language: on the sentences of their part; another eSpeak NG voice keeps its variant', () => {
    const doc = untagged('Slowly now. Bonjour à tous.', [
      { end: 12, rate: 0.5, pitch: 2, volume: -6 },
      { end: 27, language: 'fr-FR' },
    ]);
    const plan = makePlan({ text: doc.written, voice: EN, markup: doc }, ctx);
    expect(plan.sentences).toEqual(['Slowly now.', 'Bonjour à tous.']);
    expect(plan.parts![0]).toEqual({ rate: 0.5, pitch: 2, volume: -6 });
    expect(plan.parts![1]!.language).toBe('fr-FR');
    expect(plan.parts![1]!.voice!.variant).toBe('fr+f2');
    // An engine without a voice of that language keeps its own.
    expect(makePlan({ text: doc.written, voice: FLITE, markup: doc }, ctx).parts![1]).toEqual({});
  });

  it('a break before any words is a lead; one after a part without words joins the sentence before', () => {
    const doc = untagged('One. ', [
      { end: 0, pauseMs: 700 },
      { end: 4, pauseMs: 300 },
      { end: 5, pauseMs: 200 },
    ]);
    const plan = makePlan({ text: doc.written, voice: EN, markup: doc }, ctx);
    expect(plan.sentences).toEqual(['One.']);
    expect(plan.parts).toEqual([{ leadMs: 700, pauseMs: 500 }]);
  });

  it('refuses markup with no words, as plain text', () => {
    const doc: MarkupDocument = {
      written: ' ',
      characters: 0,
      spans: [],
      rules: [],
      parts: [{ end: 1, pauseMs: 500 }],
      marks: [],
    };
    expect(() => makePlan({ text: '<speak> <break/></speak>', voice: EN, markup: doc }, ctx)).toThrow(/must contain words/);
  });
});

describe('timings of marked-up text', () => {
  it("map to the request's own characters (tags take no time) and report marks at the words that follow", () => {
    const { text, doc } = sample();
    const plan = makePlan({ text, voice: EN, markup: doc }, ctx);
    const timings = buildTimings(
      text,
      plan.text,
      [
        { text: 'Hello', start: 0, duration: 1.5, words: [{ word: 'Hello', start: 0, end: 0.5 }] },
        {
          text: 'United Nations at five.',
          start: 1.5,
          duration: 1.6,
          words: [
            { word: 'United', start: 0, end: 0.4 },
            { word: 'Nations', start: 0.4, end: 0.8 },
            { word: 'at', start: 0.8, end: 1 },
            { word: 'five', start: 1, end: 1.5 },
          ],
        },
      ],
      3.1,
      plan.spoken,
      plan.marks,
    );
    expect(timings.alignment.characters.join('')).toBe(text);
    const at = (i: number) => timings.alignment.character_start_times_seconds[i]!;
    // "UN" lasts as long as "United Nations"; "Hello" before the break.
    const un = text.indexOf('>UN<') + 1;
    expect(at(un)).toBeCloseTo(1.5, 1);
    expect(timings.alignment.character_end_times_seconds[un + 1]).toBeCloseTo(2.3, 1);
    expect(at(text.indexOf('Hello'))).toBe(0);
    expect(timings.marks).toEqual([{ name: 'un', time_seconds: expect.closeTo(1.5, 1) as number }]);
    expect(timings.normalizedAlignment.characters.join('')).toBe(plan.text);
  });

  it('compose the markup and the dictionaries: each span of the request maps to all it became', () => {
    // Request "<b>AT&amp;T</b>" → written "AT&T" (tags and the entity are spans) → spoken "A T and T" (a rule over "AT&T").
    const first = [
      { from: 0, to: 3, spokenFrom: 0, spokenTo: 0 },
      { from: 5, to: 10, spokenFrom: 2, spokenTo: 3 },
      { from: 11, to: 15, spokenFrom: 4, spokenTo: 4 },
    ];
    const second = [{ from: 0, to: 4, spokenFrom: 0, spokenTo: 9 }];
    expect(composeSpans(first, second)).toEqual([
      { from: 0, to: 3, spokenFrom: 0, spokenTo: 0 },
      { from: 3, to: 11, spokenFrom: 0, spokenTo: 9 },
      { from: 11, to: 15, spokenFrom: 9, spokenTo: 9 },
    ]);
    const map = mapThroughReplacements('<b>AT&amp;T</b>', { text: 'A T and T', spans: composeSpans(first, second) }, 'A T and T');
    expect([map.from[3], map.to[3]]).toEqual([0, 9]);
  });
});

describe('say-as', () => {
  it('reads each kind in English and Chinese by the normalisers', () => {
    expect(sayAs('abc', 'characters', 'en-US')).toBe('A B C');
    expect(sayAs('NASA2', 'spell-out', 'en-US')).toBe('N A S A two');
    expect(sayAs('1,234', 'cardinal', 'en-US')).toBe('one thousand two hundred thirty-four');
    expect(sayAs('3rd', 'ordinal', 'en-US')).toBe('third');
    expect(sayAs('2024', 'digits', 'en-US')).toBe('two zero two four');
    expect(sayAs('05/03/2024', 'date', 'en-US', 'dmy')).toBe('March fifth, twenty twenty-four');
    expect(sayAs('3:30 pm', 'time', 'en-US')).toBe('three thirty p m');
    expect(sayAs('555-1234', 'telephone', 'en-US')).toBe('five five five, one two three four');
    expect(sayAs('123', 'cardinal', 'cmn')).toBe('一百二十三');
    expect(sayAs('3', 'ordinal', 'cmn')).toBe('第三');
    expect(sayAs('110', 'digits', 'cmn')).toBe('一一零');
  });
});
