import { describe, expect, it } from 'vitest';
import { errorMessage, LIMITS } from '@polyvox/contracts';
import type { MarkupDocument } from '@polyvox/speech';
import { parseSsml, plainBreaks, positionOf, readMarkup } from '../../src/pronunciation/ssml.js';
import { AppError } from '../../src/platform/errors.js';

/** The error a document gets, as its code, its rule and its position. */
function refusal(text: string): { code: string; rule: string; line?: number; column?: number } {
  try {
    readMarkup(text, 'ssml');
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return {
      code: e.code,
      rule: String(e.params['rule']),
      ...(e.params['line'] !== undefined ? { line: Number(e.params['line']), column: Number(e.params['column']) } : {}),
    };
  }
  throw new Error(`accepted: ${text}`);
}

/** The request's characters each written unit came from: the spans undone, for checking them. */
function source(text: string, doc: MarkupDocument): string {
  let out = '';
  let at = 0;
  for (const s of doc.spans) {
    out += text.slice(at, s.from);
    out += doc.written.slice(s.spokenFrom, s.spokenTo) ? `{${text.slice(s.from, s.to)}}` : '';
    at = s.to;
  }
  return out + text.slice(at);
}

describe('SSML: every tag of the subset', () => {
  it('speak, p, s: the text between the tags, a part per sentence and paragraph, each ending a sentence or a paragraph', () => {
    const doc = parseSsml('<speak><p><s>One.</s><s>Two.</s></p><p>Three.</p></speak>');
    expect(doc.written).toBe('One.Two.Three.');
    expect(doc.parts.map((p) => [p.end, p.pauseMs ?? 0, p.boundary])).toEqual([
      [4, 0, 'sentence'],
      [8, 0, 'paragraph'],
      [14, 0, 'paragraph'],
    ]);
    // An empty paragraph adds no pause of its own; a break before a paragraph's end is the pause there.
    expect(parseSsml('<speak><p>One.</p><p></p><p>Two.<break time="2s"/></p></speak>').parts).toEqual([
      { end: 4, boundary: 'paragraph' },
      { end: 8, pauseMs: 2000, boundary: 'paragraph' },
    ]);
    // Two pauses in a row add up.
    expect(parseSsml('<speak>a<break time="1s"/><break time="2s"/>b</speak>').parts.map((p) => p.pauseMs ?? 0)).toEqual([
      3000, 0,
    ]);
    expect(doc.characters).toBe(14);
  });

  it('break: time in s and ms, strength keywords, the default medium; ten seconds at most', () => {
    const doc = parseSsml(
      '<speak>a<break time="1.5s"/>b<break time="250ms"/>c<break strength="x-strong"/>d<break/>e<break strength="none"/>f</speak>',
    );
    expect(doc.written).toBe('abcdef');
    expect(doc.parts.map((p) => [p.end, p.pauseMs ?? 0])).toEqual([
      [1, 1500],
      [2, 250],
      [3, 1200],
      [4, 500],
      [5, 0],
      [6, 0],
    ]);
    expect(refusal('<speak>a<break time="11s"/></speak>').rule).toBe('bad value "11s" for time of <break> at line 1, column 9');
    expect(refusal('<speak>a<break strength="huge"/></speak>').rule).toMatch(/^bad value "huge" for strength of <break>/);
  });

  it('phoneme: its words in the text, a phoneme rule over them (ipa, cmu-arpabet); other alphabets refused', () => {
    const doc = parseSsml(
      '<speak>I say <phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme> and <phoneme alphabet="cmu-arpabet" ph="T AH0 M EY1 T OW2">tomato</phoneme>.</speak>',
    );
    expect(doc.written).toBe('I say tomato and tomato.');
    expect(doc.rules).toEqual([
      { from: 6, to: 12, rule: { type: 'phoneme', string_to_replace: 'tomato', phoneme: 'təˈmɑːtoʊ', alphabet: 'ipa' } },
      {
        from: 17,
        to: 23,
        rule: { type: 'phoneme', string_to_replace: 'tomato', phoneme: 'T AH0 M EY1 T OW2', alphabet: 'cmu-arpabet' },
      },
    ]);
    expect(refusal('<speak><phoneme alphabet="x-klingon" ph="a">b</phoneme></speak>').rule).toBe(
      'alphabet "x-klingon" is not ipa, x-sampa or cmu-arpabet at line 1, column 8',
    );
    expect(refusal('<speak><phoneme>b</phoneme></speak>').rule).toBe('<phoneme> needs ph at line 1, column 8');
  });

  it('phoneme in X-SAMPA: read as IPA; a symbol X-SAMPA has not is refused, named', () => {
    const doc = parseSsml(`<speak><phoneme alphabet="x-sampa" ph='t@"mA:t@U'>tomato</phoneme></speak>`);
    expect(doc.rules).toEqual([
      { from: 0, to: 6, rule: { type: 'phoneme', string_to_replace: 'tomato', phoneme: 'təˈmɑːtəʊ', alphabet: 'ipa' } },
    ]);
    expect(refusal('<speak>a <phoneme alphabet="X-SAMPA" ph="t@Жm$">b</phoneme></speak>').rule).toBe(
      'unknown X-SAMPA symbols "Ж", "$" in ph of <phoneme> at line 1, column 10',
    );
  });

  it('sub: an alias rule, and the alias is what is priced', () => {
    const doc = parseSsml('<speak><sub alias="World Wide Web">WWW</sub> rocks</speak>');
    expect(doc.written).toBe('WWW rocks');
    expect(doc.rules).toEqual([{ from: 0, to: 3, rule: { type: 'alias', string_to_replace: 'WWW', alias: 'World Wide Web' } }]);
    // "World Wide Web" (12) + "rocks" (5): the tags and the replaced "WWW" are not counted.
    expect(doc.characters).toBe(17);
  });

  it('say-as: each interpret-as the subset reads, with its format; anything else refused', () => {
    for (const kind of ['characters', 'spell-out', 'cardinal', 'ordinal', 'digits', 'date', 'time', 'telephone']) {
      const doc = parseSsml(`<speak>x <say-as interpret-as="${kind}" format="dmy">12</say-as></speak>`);
      expect(doc.rules).toEqual([{ from: 2, to: 4, sayAs: { kind, format: 'dmy' } }]);
    }
    expect(refusal('<speak><say-as interpret-as="currency">5</say-as></speak>').rule).toMatch(
      /^bad value "currency" for interpret-as of <say-as>/,
    );
  });

  it('prosody: keywords, percentages, relative values, semitones, Hz against the voice, dB; nested ones compose', () => {
    const doc = parseSsml(
      '<speak><prosody rate="slow" pitch="+2st" volume="loud">a<prosody rate="200%" pitch="-10%" volume="-6dB">b</prosody></prosody>' +
        '<prosody rate="+20%" pitch="high" volume="x-soft">c</prosody><prosody rate="1.1" pitch="+60Hz">d</prosody>' +
        '<prosody volume="silent">e</prosody></speak>',
      120,
    );
    expect(doc.written).toBe('abcde');
    const [a, b, c, d, e] = doc.parts;
    expect(a).toMatchObject({ end: 1, rate: 0.75, pitch: 2, volume: 4 });
    expect(b!.rate).toBeCloseTo(1.5);
    expect(b!.pitch).toBeCloseTo(2 + 12 * Math.log2(0.9));
    expect(b!.volume).toBe(-2);
    expect(c).toMatchObject({ end: 3, pitch: 3, volume: -12 });
    expect(c!.rate).toBeCloseTo(1.2);
    expect(d!.rate).toBeCloseTo(1.1);
    expect(d!.pitch).toBeCloseTo(12 * Math.log2(180 / 120));
    expect(e!.volume).toBe(-120);
    expect(refusal('<speak><prosody rate="warp">a</prosody></speak>').rule).toMatch(/^bad value "warp" for rate of <prosody>/);
    expect(refusal('<speak><prosody pitch="+30st">a</prosody></speak>').rule).toMatch(/^bad value "\+30st" for pitch/);
    expect(refusal('<speak><prosody volume="+90dB">a</prosody></speak>').rule).toMatch(/^bad value "\+90dB" for volume/);
  });

  it('emphasis: its level as prosody; lang: its language on the part; mark: its name at the tag', () => {
    const text =
      '<speak>a <emphasis level="strong">b</emphasis> <emphasis>c</emphasis> <lang xml:lang="fr-FR">d<mark name="here"/>e</lang></speak>';
    const doc = parseSsml(text);
    expect(doc.written).toBe('a b c de');
    expect(doc.parts.find((p) => p.end === 3)).toMatchObject({ rate: 0.85, pitch: 2, volume: 4 });
    expect(doc.parts.find((p) => p.end === 5)).toMatchObject({ pitch: 1, volume: 2 });
    expect(doc.parts.find((p) => p.end === 8)).toMatchObject({ language: 'fr-FR' });
    expect(doc.marks).toEqual([{ name: 'here', at: text.indexOf('<mark') }]);
    expect(refusal('<speak><lang>x</lang></speak>').rule).toBe('<lang> needs xml:lang at line 1, column 8');
    expect(refusal('<speak><mark/></speak>').rule).toBe('<mark> needs name at line 1, column 8');
  });

  it('spans map the written text back to the request: tags to nothing, entities to their character', () => {
    const text = '<speak>AT&amp;T <s>is &#x41;&#66;C</s><!-- not read --></speak>';
    const doc = parseSsml(text);
    expect(doc.written).toBe('AT&T is ABC');
    expect(source(text, doc)).toBe('AT{&amp;}T is {&#x41;}{&#66;}C');
    expect(doc.characters).toBe(9);
  });

  it('nesting: containers in containers; the elements spoken otherwise take text only', () => {
    const doc = parseSsml(
      '<speak><p><prosody rate="fast"><emphasis><lang xml:lang="de">Hallo <sub alias="x">y</sub></lang></emphasis></prosody></p></speak>',
    );
    expect(doc.written).toBe('Hallo y');
    expect(doc.parts.at(-2) ?? doc.parts.at(-1)).toMatchObject({ language: 'de' });
    expect(refusal('<speak><sub alias="a"><break/>b</sub></speak>').rule).toBe(
      '<sub> takes text only (<break> at line 1, column 23)',
    );
  });
});

describe('SSML: refusals name what and where', () => {
  it("an object's own names as tags or values are refused like any unknown one, never taken from a prototype", () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(refusal(`<speak>Hi <${name}/> there</speak>`)).toMatchObject({ code: 'VALIDATION_FAILED' });
    for (const doc of [
      '<speak>Hi <break strength="__proto__"/> there</speak>',
      '<speak><prosody rate="constructor">Hi</prosody></speak>',
      '<speak><prosody pitch="toString">Hi</prosody></speak>',
      '<speak><emphasis level="__proto__">Hi</emphasis></speak>',
      '<speak><say-as interpret-as="constructor">12</say-as></speak>',
    ])
      expect(refusal(doc).code).toBe('VALIDATION_FAILED');
  });

  it('an unknown tag is refused by name and position, never read', () => {
    const r = refusal('<speak>\n  Hello <voice name="x">there</voice>\n</speak>');
    expect(r).toEqual({
      code: 'VALIDATION_FAILED',
      rule: 'unsupported SSML tag <voice> at line 2, column 9',
      line: 2,
      column: 9,
    });
    expect(refusal('<speak><audio src="https://example.com/a.mp3"/></speak>').rule).toMatch(/^unsupported SSML tag <audio>/);
    // Namespaced, the local name is what is named.
    expect(refusal('<speak><amazon:effect name="whispered">x</amazon:effect></speak>').rule).toMatch(
      /^unsupported SSML tag <effect>/,
    );
  });

  it('its message is in the request language, about the document (no field name)', () => {
    const rule = refusal('<speak><voice>x</voice></speak>').rule;
    expect(errorMessage('VALIDATION_FAILED', 'en', { field: 'text', rule })).toBe(
      'Unsupported SSML tag <voice> at line 1, column 8',
    );
    expect(errorMessage('VALIDATION_FAILED', 'zh-CN', { field: 'text', rule })).toBe(
      '不支持的 SSML 标签 <voice>（第 1 行第 8 列）',
    );
    expect(errorMessage('VALIDATION_FAILED', 'zh-TW', { field: 'text', rule })).toBe(
      '不支援的 SSML 標籤 <voice>（第 1 行第 8 欄）',
    );
  });

  it("a malformed document's reason is worded in the request language too, naming the tag", () => {
    const rule = refusal('<speak><prosody rate="slow">Hello</speak>').rule;
    expect(rule).toBe(
      'not well-formed SSML at line 1, column 34: the <prosody> tag opened at line 1, column 8 is not closed before </speak>',
    );
    expect(errorMessage('VALIDATION_FAILED', 'en', { field: 'text', rule })).toBe(
      'Not well-formed SSML at line 1, column 34: the <prosody> tag opened at line 1, column 8 is not closed before </speak>',
    );
    expect(errorMessage('VALIDATION_FAILED', 'zh-CN', { field: 'text', rule })).toBe(
      'SSML 格式不正确（第 1 行第 34 列）：第 1 行第 8 列的 <prosody> 标签在 </speak> 之前没有关闭',
    );
    expect(errorMessage('VALIDATION_FAILED', 'zh-TW', { field: 'text', rule })).toBe(
      'SSML 格式不正確（第 1 行第 34 欄）：第 1 行第 8 欄的 <prosody> 標籤在 </speak> 之前沒有關閉',
    );
    // Every reason the validator gives here is one the catalogue words: no English left in a Chinese message.
    for (const doc of [
      '<speak>Hello',
      '<speak>a</p></speak>',
      '<speak>a < b</speak>',
      '<speak><break time="1s" time="2s"/></speak>',
      '<speak><break time/></speak>',
      '<speak>a</speak>b',
      '<speak><1a/></speak>',
    ]) {
      const zh = errorMessage('VALIDATION_FAILED', 'zh-CN', { field: 'text', rule: refusal(doc).rule });
      // (Tags and attribute names are the document's own words.)
      expect(zh.replace(/<[^>]*>|SSML|XML|\btime\b/g, ''), doc).not.toMatch(/[A-Za-z]{2,}/);
    }
  });

  it('a malformed document: the line and column the XML parser found', () => {
    const r = refusal('<speak>\n  <p>Hello\n</speak>');
    expect(r.code).toBe('VALIDATION_FAILED');
    expect(r.rule).toMatch(/^not well-formed SSML at line 3, column \d+: /);
    expect(r.line).toBe(3);
    const unclosed = refusal('<speak>Hello <break time="1s"></speak>');
    expect(unclosed.line).toBe(1);
    expect(unclosed.rule).toMatch(/^not well-formed SSML at line 1, column \d+/);
    expect(refusal('<speak>a</speak><speak>b</speak>').rule).toMatch(/SSML|root/);
    expect(refusal('<p>not speak</p>').rule).toBe('the root element must be <speak> (<p> at line 1, column 1)');
  });

  it('entity attacks: any DOCTYPE or ENTITY is refused before parsing, an undeclared entity by name', () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE speak [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
]>
<speak>&lol2;</speak>`;
    expect(refusal(laughs).rule).toBe('an SSML document may not declare a DOCTYPE or entities');
    const xxe = '<!DOCTYPE speak [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><speak>&xxe;</speak>';
    // Text that opens with a DOCTYPE is taken for SSML and refused, even as text_type "text".
    expect(() => readMarkup(xxe)).toThrow(AppError);
    expect(refusal(xxe).rule).toBe('an SSML document may not declare a DOCTYPE or entities');
    expect(refusal('<speak>&xxe; here</speak>').rule).toBe('undeclared entity &xxe; at line 1, column 8');
    expect(refusal('<speak>&#0; here</speak>').rule).toBe('bad character reference &#0; at line 1, column 8');
  });

  it('a size limit: one character over is refused before parsing', () => {
    const pad = 'a'.repeat(LIMITS.ssmlMaxLength - '<speak></speak>'.length);
    expect(parseSsml(`<speak>${pad}</speak>`).characters).toBe(pad.length);
    expect(refusal(`<speak>${pad}a</speak>`).rule).toBe(`must be at most ${LIMITS.ssmlMaxLength} characters long`);
  });

  it('positions count lines and columns from 1', () => {
    expect(positionOf('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(positionOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});

describe("Plain text: SSML only when it says so, and ElevenLabs' breaks", () => {
  it('text that opens with <speak> is SSML whatever text_type says; other text is not', () => {
    expect(readMarkup('<speak>Hi</speak>')?.written).toBe('Hi');
    expect(readMarkup('  <?xml version="1.0"?>\n<speak>Hi</speak>')?.written).toBe('Hi');
    expect(readMarkup('A < B and <voice> in prose.')).toBeUndefined();
  });

  it('<break time="1.5s" /> in plain text is a pause (3 s at most); the tag is not read nor priced', () => {
    const doc = plainBreaks('Wait <break time="1.5s" />for it<break time=\'5s\'/>. Now <break time="200ms"/>!')!;
    expect(doc.written).toBe('Wait for it. Now !');
    expect(doc.parts.map((p) => p.pauseMs ?? 0)).toEqual([1500, 3000, 200, 0]);
    expect(doc.characters).toBe(14);
    expect(plainBreaks('No breaks <here>.')).toBeUndefined();
  });
});
