import { describe, expect, it } from 'vitest';
import { AIGC_KEYS, AigcRecord, ProvenanceVerifyResponse, ProvenanceVerifyUrlRequest } from '../src/provenance.js';

const AIGC = {
  Label: '1',
  ContentProducer: 'polyvox',
  ProduceID: 'pid_1',
  ReservedCode1: 'abc',
  ContentPropagator: '',
  PropagateID: '',
  ReservedCode2: '',
};

const ANSWER = {
  ai_generated: true,
  watermark: { detected: true, score: 9.1, false_alarm_rate: 1e-9, payload_found: true },
  aigc: AIGC,
  aigc_valid: true,
  c2pa: { present: true, valid: true, validation_state: 'Valid', claim_generator: 'Polyvox/0.1.0' },
};

describe('provenance contract', () => {
  it('the AIGC record has exactly the standard’s seven keys', () => {
    expect(Object.keys(AigcRecord.shape)).toEqual([...AIGC_KEYS]);
    expect(AigcRecord.safeParse({ ...AIGC, ReservedCode2: undefined }).success).toBe(false);
  });

  it('an answer with and without the owner’s record', () => {
    expect(ProvenanceVerifyResponse.parse(ANSWER)).toEqual(ANSWER);
    const record = {
      produce_id: 'pid_1',
      created_at: '2026-01-01T00:00:00.000Z',
      voice_id: 'voice_1',
      type: 'tts',
      api_key_id: null,
    };
    expect(ProvenanceVerifyResponse.parse({ ...ANSWER, record }).record).toEqual(record);
    // A file with no label at all: both metadata parts are null.
    const bare = { ...ANSWER, ai_generated: false, aigc: null, aigc_valid: false, c2pa: null };
    expect(ProvenanceVerifyResponse.safeParse(bare).success).toBe(true);
  });

  it('refuses a false-alarm rate outside 0..1 and an unknown C2PA state', () => {
    const rate = { ...ANSWER, watermark: { ...ANSWER.watermark, false_alarm_rate: 2 } };
    expect(ProvenanceVerifyResponse.safeParse(rate).success).toBe(false);
    const state = { ...ANSWER, c2pa: { ...ANSWER.c2pa, validation_state: 'valid-ish' } };
    expect(ProvenanceVerifyResponse.safeParse(state).success).toBe(false);
  });

  it('the url form needs a url', () => {
    expect(ProvenanceVerifyUrlRequest.safeParse({}).success).toBe(false);
    expect(ProvenanceVerifyUrlRequest.safeParse({ url: '/tts/jobs/job_1/audio' }).success).toBe(true);
  });
});
