import { describe, expect, it } from 'vitest';
import { cuesFromAlignment, parseVtt, spaceBetween, wordAt } from './subtitles';

const VTT = `WEBVTT

00:00:00.200 --> 00:00:01.070
Fish &amp; <00:00:00.500>chips &lt; <00:00:00.800>now&gt;.

00:00:01.500 --> 00:00:03.000
本内容<00:00:01.900>由人工智能生成，
<00:00:02.400>请注意辨别。
`;

describe('the transcript read from WebVTT', () => {
  it('gives each word its start, from the cue or its timestamp tag, and unescapes the text', () => {
    const cues = parseVtt(VTT);
    expect(cues).toHaveLength(2);
    expect(cues[0]).toEqual({
      start: 0.2,
      end: 1.07,
      words: [
        { start: 0.2, text: 'Fish &' },
        { start: 0.5, text: 'chips <' },
        { start: 0.8, text: 'now>.' },
      ],
    });
    expect(cues[1]!.words.map((w) => [w.start, w.text])).toEqual([
      [1.5, '本内容'],
      [1.9, '由人工智能生成，'],
      [2.4, '请注意辨别。'],
    ]);
  });

  it('finds the word spoken at a time, and none between cues', () => {
    const cues = parseVtt(VTT);
    expect(wordAt(cues, 0.1)).toBeNull();
    expect(wordAt(cues, 0.2)).toEqual([0, 0]);
    expect(wordAt(cues, 0.65)).toEqual([0, 1]);
    expect(wordAt(cues, 1.0)).toEqual([0, 2]);
    expect(wordAt(cues, 1.2)).toBeNull();
    expect(wordAt(cues, 2.5)).toEqual([1, 2]);
    expect(wordAt(cues, 3.0)).toBeNull();
  });
});

describe('the transcript of a timed stream', () => {
  const times = (text: string, step = 0.1) => {
    const characters = Array.from(text);
    return {
      characters,
      character_start_times_seconds: characters.map((_, i) => i * step),
      character_end_times_seconds: characters.map((_, i) => (i + 1) * step),
    };
  };

  it('makes words of letters with their punctuation, and cues that end with sentences', () => {
    const cues = cuesFromAlignment(times("Hello, world. It's fine!"));
    expect(cues.map((c) => c.words.map((w) => w.text))).toEqual([
      ['Hello,', 'world.'],
      ["It's", 'fine!'],
    ]);
    expect(cues[0]!.words[1]!.start).toBeCloseTo(0.7);
    // The first cue lasts until the second begins.
    expect(cues[0]!.end).toBeCloseTo(cues[1]!.start);
    expect(wordAt(cues, 1.3)).toEqual([0, 1]);
  });

  it('gives each Han character a word of its own', () => {
    const cues = cuesFromAlignment(times('你好，世界。'));
    expect(cues[0]!.words.map((w) => w.text)).toEqual(['你', '好，', '世', '界。']);
  });

  it('keeps digits apart from the Han characters around them', () => {
    const cues = cuesFromAlignment(times('2024年5月3日'));
    expect(cues[0]!.words.map((w) => w.text)).toEqual(['2024', '年', '5', '月', '3', '日']);
  });

  it('shows no markup: SSML tags and break tags are not spoken', () => {
    const cues = cuesFromAlignment(times('<speak>你好，<break time="500ms"/>世界。</speak> 1 < 2'));
    expect(cues.flatMap((c) => c.words.map((w) => w.text))).toEqual(['你', '好，', '世', '界。', '1', '<', '2']);
  });
});

describe("the spaces between the transcript's words", () => {
  it('puts none between Chinese words or beside their punctuation, and one between others', () => {
    expect(spaceBetween('2024', '年')).toBe(false);
    expect(spaceBetween('年', '5')).toBe(false);
    expect(spaceBetween('好，', '世')).toBe(false);
    expect(spaceBetween('Hello,', 'world.')).toBe(true);
  });
});
