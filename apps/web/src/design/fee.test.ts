import { describe, expect, it } from 'vitest';
import type { TtsConfig } from '../speech/types';
import { activationFee } from './fee';

const config = (extra: Record<string, unknown>) =>
  ({
    models: [],
    limits: { max_text_length: 1, mix_max: 3, preview_versions: 50, job_threshold: 1 },
    ...extra,
  }) as unknown as TtsConfig;

describe('activationFee', () => {
  it("takes the preview's own fee first", () => {
    expect(activationFee('clone', { activation_credits: 700 }, config({ activation_fees: { clone: 1000 } }))).toBe(700);
  });

  it('reads /tts/config by usage type: text_to_voice for a prompt, clone for a clone', () => {
    const c = config({ activation_fees: { text_to_voice: 500, clone: 1000 } });
    expect(activationFee('prompt', {}, c)).toBe(500);
    expect(activationFee('clone', undefined, c)).toBe(1000);
  });

  it('says nothing rather than a wrong number when the server did not say', () => {
    expect(activationFee('clone', {}, config({}))).toBeNull();
    expect(activationFee('clone', {}, undefined)).toBeNull();
    expect(activationFee('clone', { activation_credits: -1 }, config({ activation_fees: { clone: 'free' } }))).toBeNull();
    expect(activationFee('prompt', {}, config({ activation_fees: Object.create({ text_to_voice: 5 }) }))).toBeNull();
  });

  it('a mix is saved for nothing', () => {
    expect(activationFee('mix', {}, config({}))).toBe(0);
  });
});
