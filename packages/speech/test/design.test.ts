/**
 * Prompt to voice and mixing, judged on synthesized audio: different descriptions give measurably
 * different voices, a seed varies a prompt a little, and a 50/50 mix sits between its parents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptVoice, readPrompt } from '../src/analysis/prompt.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import type { VoiceInfo, VoiceProfile } from '../src/core/types.ts';
import { measureWav, semitones } from './support/judge.ts';

let speech: Speech;
beforeAll(async () => {
  speech = await createSpeech({ poolSize: 2, cache: false });
}, 90_000);
afterAll(() => speech.close());

const TEXT = 'Hello! This is my voice. I can read your text aloud, clearly and naturally, for as long as you like.';
const ZH_TEXT = '你好！这是我的声音。我可以清楚而自然地朗读你的文字。';

async function f0Of(voice: VoiceInfo, profile: VoiceProfile, text = TEXT): Promise<number> {
  const r = await speech.synthesize({ text, voice, profile, format: 'wav', checkLanguage: false });
  return measureWav(r.audio).f0MedianHz;
}

describe('readPrompt', () => {
  it('reads gender, age, pitch, pace, language and tones in English', () => {
    expect(readPrompt('A deep, calm older man, slow, British')).toEqual({
      gender: 'male',
      age: 'senior',
      pace: -0.6,
      language: 'en-GB',
      tones: ['deep', 'calm'],
    });
    const t = readPrompt('bright young female voice, very fast and energetic, a little breathy');
    expect(t).toMatchObject({ gender: 'female', age: 'young', pace: 0.9 });
    expect(t.tones).toEqual(expect.arrayContaining(['bright', 'energetic', 'breathy']));
    // "female" is not "male", "woman" not "man".
    expect(readPrompt('a woman').gender).toBe('female');
    expect(readPrompt('raspy whisper, warm').tones).toEqual(['warm', 'raspy', 'whisper']);
    expect(readPrompt('a high-pitched little girl').pitch).toBeGreaterThan(0);
    expect(readPrompt('a high-pitched little girl')).toMatchObject({ gender: 'female', age: 'child' });
    // "a little" is an amount, not a child.
    expect(readPrompt('a deep voice, a little raspy').age).toBeUndefined();
    expect(readPrompt('a cheerful boy').age).toBe('young');
  });

  it('reads Chinese descriptions', () => {
    expect(readPrompt('低沉平静的老年男声，语速慢，普通话')).toMatchObject({
      gender: 'male',
      age: 'senior',
      pace: -0.6,
      language: 'zh-CN',
    });
    expect(readPrompt('低沉平静的老年男声').tones).toEqual(expect.arrayContaining(['deep', 'calm']));
    const t = readPrompt('明亮温暖的年轻女声，有活力，带一点气声和沙哑');
    expect(t).toMatchObject({ gender: 'female', age: 'young' });
    expect(t.tones).toEqual(expect.arrayContaining(['warm', 'bright', 'breathy', 'raspy', 'energetic']));
    expect(readPrompt('耳语').tones).toEqual(['whisper']);
    expect(readPrompt('粤语').language).toBe('yue');
    expect(readPrompt('一位温柔的老师').age).toBeUndefined();
    expect(readPrompt('一位温柔的老奶奶')).toMatchObject({ age: 'senior', gender: 'female' });
    expect(readPrompt('小孩的声音').age).toBe('child');
  });

  it('finds nothing in nothing, and survives hostile input', () => {
    expect(readPrompt('')).toEqual({ tones: [] });
    expect(readPrompt('__proto__ constructor toString \u0000')).toEqual({ tones: [] });
    expect(readPrompt('x'.repeat(100_000) + ' male').tones).toEqual([]);
    expect(readPrompt(undefined as unknown as string)).toEqual({ tones: [] });
  });
});

describe('promptVoice', () => {
  it('picks a base of the asked gender and language among the candidates, with a plain-JSON profile', () => {
    const espeak = speech.listVoices({ model: 'espeak-ng' });
    const man = promptVoice('a deep calm male voice', espeak, 1, 'en-US');
    expect(man.base.gender).toBe('male');
    expect(man.base.languages.some((l) => l.startsWith('en'))).toBe(true);
    const woman = promptVoice('明亮年轻的女声', espeak, 1, 'zh-CN');
    expect(woman.base.gender).toBe('female');
    expect(woman.base.languages.some((l) => l.startsWith('zh') || l === 'cmn')).toBe(true);
    expect(JSON.parse(JSON.stringify(man.profile))).toEqual(man.profile);
  });

  it('gives the same voice for the same seed and a slightly different one for another', () => {
    const flite = speech.listVoices({ model: 'flite' });
    const a = promptVoice('a warm female narrator', flite, 7);
    expect(promptVoice('a warm female narrator', flite, 7)).toEqual(a);
    const others = [8, 9, 10, 11].map((s) => promptVoice('a warm female narrator', flite, s));
    expect(others.some((o) => o.profile.pitchHz !== a.profile.pitchHz)).toBe(true);
    for (const o of others) {
      // Small: within a semitone and a few per cent of rate.
      expect(Math.abs(semitones(o.profile.pitchHz, a.profile.pitchHz))).toBeLessThan(1.01);
      expect(Math.abs(o.profile.rate / a.profile.rate - 1)).toBeLessThan(0.07);
    }
  });

  it.each([
    ['flite', 'en'],
    ['espeak-ng', 'en-US'],
    ['gnuspeech', 'en'],
  ])('"deep calm male voice" is far lower than "bright young female voice" on %s, measured', async (model, language) => {
    const candidates = speech.listVoices({ model });
    const deep = promptVoice('deep calm male voice', candidates, 1, language);
    const bright = promptVoice('bright young female voice', candidates, 1, language);
    const [low, high] = await Promise.all([f0Of(deep.base, deep.profile), f0Of(bright.base, bright.profile)]);
    console.log(
      `${model}: "deep calm male voice" ${low.toFixed(1)} Hz (${deep.base.id}), "bright young female voice" ${high.toFixed(1)} Hz (${bright.base.id})`,
    );
    expect(semitones(high, low)).toBeGreaterThan(7);
  });

  it('the same holds for Chinese descriptions on Mandarin voices', async () => {
    const candidates = speech.listVoices({ model: 'espeak-ng' });
    const deep = promptVoice('低沉平静的男声', candidates, 3, 'zh-CN');
    const bright = promptVoice('明亮年轻的女声', candidates, 3, 'zh-CN');
    const [low, high] = await Promise.all([f0Of(deep.base, deep.profile, ZH_TEXT), f0Of(bright.base, bright.profile, ZH_TEXT)]);
    expect(semitones(high, low)).toBeGreaterThan(7);
  });

  it('tone words move the measures they name: a whisper is less periodic, slow is longer', async () => {
    const flite = speech.listVoices({ model: 'flite' });
    const plain = promptVoice('a female voice', flite, 1);
    const whisper = promptVoice('a female voice, whisper', flite, 1);
    const slow = promptVoice('a female voice, very slow', flite, 1);
    const render = async (p: typeof plain) =>
      measureWav((await speech.synthesize({ text: TEXT, voice: p.base, profile: p.profile, format: 'wav' })).audio);
    const [a, b, c] = await Promise.all([render(plain), render(whisper), render(slow)]);
    expect(b.hnrDb).toBeLessThan(a.hnrDb - 2);
    expect(c.durationSec).toBeGreaterThan(a.durationSec * 1.15);
  });

  it('refuses an empty candidate list', () => {
    expect(() => promptVoice('a voice', [], 1)).toThrow();
  });
});

describe('mixing', () => {
  it('a 50/50 mix of a low and a high voice has its F0 between theirs, measured', async () => {
    const low = speech.getVoice('espeak:en-us')!;
    const high = speech.getVoice('espeak:en-us+f4')!;
    const mix = speech.mix([
      { voiceId: low.id, weight: 1 },
      { voiceId: high.id, weight: 1 },
    ]);
    const [fLow, fHigh, fMix] = await Promise.all([
      f0Of(low, low.profile),
      f0Of(high, high.profile),
      f0Of(mix.base, mix.profile),
    ]);
    console.log(`mix: low ${fLow.toFixed(1)} Hz, high ${fHigh.toFixed(1)} Hz, 50/50 mix ${fMix.toFixed(1)} Hz`);
    expect(fMix).toBeGreaterThan(fLow);
    expect(fMix).toBeLessThan(fHigh);
    // Pitch blends on a log scale: the mix is near the middle in semitones.
    const middle = Math.sqrt(fLow * fHigh);
    expect(Math.abs(semitones(fMix, middle))).toBeLessThan(2);
    // Weights move it: 3 to 1 towards the high voice is higher than 1 to 1.
    const toHigh = speech.mix([
      { voiceId: low.id, weight: 1 },
      { voiceId: high.id, weight: 3 },
    ]);
    expect(await f0Of(toHigh.base, toHigh.profile)).toBeGreaterThan(fMix);
  });
});
