import { describe, expect, it } from 'vitest';
import { AIGC_KEYS, LIMITS } from '@polyvox/contracts';
import { checkAudioFile, chooseVerdict, downloadMarks, falseAlarmOdds, formatCount } from './rules';
import { AIGC_KEY_ORDER } from './types';

const AIGC = {
  Label: '1',
  ContentProducer: 'polyvox',
  ProduceID: 'pid_1',
  ReservedCode1: 'x',
  ContentPropagator: '',
  PropagateID: '',
  ReservedCode2: '',
};
const C2PA = { present: true, valid: true, validation_state: 'Valid' as const, claim_generator: 'Other AI/2.0' };

describe('chooseVerdict', () => {
  it('made here whenever the server says so, whatever the metadata', () => {
    expect(chooseVerdict({ ai_generated: true, aigc: null, aigc_valid: false, c2pa: null })).toBe('ours');
    expect(chooseVerdict({ ai_generated: true, aigc: AIGC, aigc_valid: false, c2pa: C2PA })).toBe('ours');
  });

  it('an AIGC label that does not bind (copied from other audio, edited) with nothing else tying the file is "copied"', () => {
    expect(chooseVerdict({ ai_generated: false, aigc: AIGC, aigc_valid: false, c2pa: null })).toBe('copied');
    // The manifest a copied ID3 tag brings along does not change it.
    expect(chooseVerdict({ ai_generated: false, aigc: AIGC, aigc_valid: false, c2pa: { ...C2PA, valid: false } })).toBe('copied');
  });

  it("another generator's manifest the server does not vouch for is 'labelled', not 'ours'", () => {
    expect(chooseVerdict({ ai_generated: false, aigc: null, aigc_valid: false, c2pa: C2PA })).toBe('labelled');
  });

  it('nothing found: a manifest reported absent counts as nothing', () => {
    expect(chooseVerdict({ ai_generated: false, aigc: null, aigc_valid: false, c2pa: null })).toBe('none');
    expect(chooseVerdict({ ai_generated: false, aigc: null, aigc_valid: false, c2pa: { ...C2PA, present: false } })).toBe('none');
  });
});

describe('falseAlarmOdds', () => {
  it('a small rate as "1 in N", N rounded to two significant digits', () => {
    expect(falseAlarmOdds(1e-6)).toEqual({ kind: 'oneIn', n: 1_000_000 });
    expect(falseAlarmOdds(3.2e-7)).toEqual({ kind: 'oneIn', n: 3_100_000 });
    expect(falseAlarmOdds(0.05)).toEqual({ kind: 'oneIn', n: 20 });
    expect(falseAlarmOdds(0.0123)).toEqual({ kind: 'oneIn', n: 81 });
  });

  it('a large rate as a percentage (the score then means little)', () => {
    expect(falseAlarmOdds(0.1)).toEqual({ kind: 'percent', percent: 10 });
    expect(falseAlarmOdds(0.4321)).toEqual({ kind: 'percent', percent: 43 });
    expect(falseAlarmOdds(1)).toEqual({ kind: 'percent', percent: 100 });
  });

  it('below 1e-12 (and exactly 0) as "less than 1 in a trillion", never "1 in infinity"', () => {
    expect(falseAlarmOdds(0)).toEqual({ kind: 'below', n: 1e12 });
    expect(falseAlarmOdds(1e-15)).toEqual({ kind: 'below', n: 1e12 });
    expect(falseAlarmOdds(1e-12)).toEqual({ kind: 'oneIn', n: 1e12 });
  });

  it('nothing for a value that is not a probability', () => {
    expect(falseAlarmOdds(Number.NaN)).toBeNull();
    expect(falseAlarmOdds(-0.1)).toBeNull();
    expect(falseAlarmOdds(1.5)).toBeNull();
  });
});

describe('formatCount', () => {
  it('large counts in each language’s own words', () => {
    expect(formatCount(1_000_000, 'en')).toBe('1 million');
    expect(formatCount(3_100_000, 'en')).toBe('3.1 million');
    expect(formatCount(1e12, 'en')).toBe('1 trillion');
    expect(formatCount(1_000_000, 'zh-CN')).toBe('100万');
    expect(formatCount(1e12, 'zh-CN')).toBe('1万亿');
    expect(formatCount(1_000_000, 'zh-TW')).toBe('100萬');
    expect(formatCount(1e12, 'zh-TW')).toBe('1兆');
  });

  it('small counts as plain numbers', () => {
    expect(formatCount(20, 'en')).toBe('20');
    expect(formatCount(8100, 'en')).toBe('8,100');
  });
});

describe('checkAudioFile', () => {
  it('takes audio by extension or declared type', () => {
    for (const name of ['a.mp3', 'a.WAV', 'a.ogg', 'a.opus', 'a.m4a', 'a.flac', 'a.aac', 'a.webm'])
      expect(checkAudioFile({ name, type: '', size: 10 }), name).toBeNull();
    expect(checkAudioFile({ name: 'recording', type: 'audio/x-caf', size: 10 })).toBeNull();
    expect(checkAudioFile({ name: 'notes.txt', type: 'text/plain', size: 10 })).toBe('type');
    expect(checkAudioFile({ name: 'photo.png', type: 'image/png', size: 10 })).toBe('type');
  });

  it('refuses an empty file and one over 20 MB before sending; one at the limit goes', () => {
    expect(LIMITS.provenanceMaxBytes).toBe(20_000_000);
    expect(checkAudioFile({ name: 'a.wav', type: 'audio/wav', size: 0 })).toBe('empty');
    expect(checkAudioFile({ name: 'a.wav', type: 'audio/wav', size: 20_000_001 })).toBe('size');
    expect(checkAudioFile({ name: 'a.wav', type: 'audio/wav', size: 20_000_000 })).toBeNull();
  });
});

describe('downloadMarks', () => {
  it('C2PA only in wav and mp3; pcm (no container) keeps only the watermark', () => {
    expect(downloadMarks('mp3')).toEqual(['metadata', 'watermark', 'c2pa']);
    expect(downloadMarks('wav')).toEqual(['metadata', 'watermark', 'c2pa']);
    expect(downloadMarks('opus')).toEqual(['metadata', 'watermark']);
    expect(downloadMarks('pcm')).toEqual(['watermark']);
    // Streamed, a file is labelled as it is made, not signed.
    expect(downloadMarks('mp3', true)).toEqual(['metadata', 'watermark']);
    expect(downloadMarks('wav', true)).toEqual(['metadata', 'watermark']);
  });
});

it('the AIGC keys are the contract’s, in its order', () => {
  expect([...AIGC_KEY_ORDER]).toEqual([...AIGC_KEYS]);
});
