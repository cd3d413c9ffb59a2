/** ElevenLabs' `voice_settings` on a profile: stability and style move the pitch range, no speaker boost the tone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePcm, settingsProfile, DEFAULT_VOICE_SETTINGS } from '../src/index.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import type { VoiceProfile } from '../src/core/types.ts';

const OWN: VoiceProfile = { pitchHz: 120, range: 50, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 };

describe('settingsProfile', () => {
  it("leaves the profile itself at ElevenLabs' defaults, and with nothing set", () => {
    expect(settingsProfile(OWN, DEFAULT_VOICE_SETTINGS)).toBe(OWN);
    expect(settingsProfile(OWN, {})).toBe(OWN);
    expect(settingsProfile(OWN, { stability: null, style: null, speakerBoost: null, similarityBoost: 0.1 })).toBe(OWN);
  });

  it('widens the range as stability falls and style rises; no speaker boost tilts darker', () => {
    const loose = settingsProfile(OWN, { stability: 0 });
    const steady = settingsProfile(OWN, { stability: 1 });
    expect(loose.range).toBeGreaterThan(OWN.range * 1.5);
    expect(steady.range).toBeLessThan(OWN.range * 0.5);
    expect(settingsProfile(OWN, { style: 1 }).range).toBeGreaterThan(OWN.range * 1.5);
    expect(settingsProfile(OWN, { stability: -3 }).range).toBe(loose.range);
    const dull = settingsProfile(OWN, { speakerBoost: false });
    expect(dull.tiltDb).toBeLessThan(0);
    expect(dull.range).toBe(OWN.range);
    // Nothing else about the voice moves.
    for (const p of [loose, steady, dull])
      expect({ ...p, range: 0, tiltDb: 0, seed: 0 }).toEqual({ ...OWN, range: 0, tiltDb: 0, seed: 0 });
  });
});

describe('settings heard', () => {
  let speech: Speech;
  beforeAll(async () => {
    speech = await createSpeech({ poolSize: 1 });
  }, 90_000);
  afterAll(() => speech.close());

  const TEXT = 'Do you really think so? I was sure that the weather would hold until the evening, but look at it now!';
  const measure = async (profile?: VoiceProfile) => {
    const voice = speech.listVoices().find((v) => v.id === 'espeak:en-us')!;
    const r = await speech.synthesize({ text: TEXT, voiceId: voice.id, format: 'pcm', ...(profile ? { profile } : {}) });
    const pcm = new Int16Array(r.audio.buffer, r.audio.byteOffset, r.audio.length / 2);
    return {
      m: measurePcm(
        Float32Array.from(pcm, (s) => s / 32768),
        24_000,
      ),
      audio: r.audio,
      voice,
    };
  };

  it('speaks a wider pitch range at stability 0 than at 1 (eSpeak NG renders the range)', async () => {
    const { voice } = await measure();
    const loose = await measure(settingsProfile(voice.profile, { stability: 0 }));
    const steady = await measure(settingsProfile(voice.profile, { stability: 1 }));
    expect(loose.m.f0RangeSemitones).toBeGreaterThan(steady.m.f0RangeSemitones * 1.3);
    // The pace stays the request's.
    expect(Math.abs(loose.m.durationSec - steady.m.durationSec)).toBeLessThan(loose.m.durationSec * 0.05);
  });
});
