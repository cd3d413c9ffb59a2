import { describe, expect, it } from 'vitest';
import { parseVtt, wordAt } from './subtitles';

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
