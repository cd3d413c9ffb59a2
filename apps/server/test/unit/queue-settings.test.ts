import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { fromWire, toWire, wireRequestSchema } from '../../src/synthesis/wire.js';
import { readPayload, writePayload } from '../../src/synthesis/jobs/definition.js';
import { synthesisJob } from '../../src/synthesis/jobs/synthesis.js';

describe('roles and queue settings', () => {
  it('defaults to the embedded role, with no Redis needed', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      ROLE: 'all',
      QUEUE_PREFIX: 'polyvox-queue',
      QUEUE_STALLED_SECONDS: 30,
      JOB_STALE_SECONDS: 30,
    });
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('refuses ROLE=api or worker without REDIS_URL, and an unknown role or a prefix with a colon', () => {
    for (const role of ['api', 'worker']) {
      expect(() => loadConfig({ ROLE: role })).toThrow(ConfigError);
      expect(() => loadConfig({ ROLE: role })).toThrow(/ROLE="[a-z]+": needs REDIS_URL/);
      expect(loadConfig({ ROLE: role, REDIS_URL: 'redis://127.0.0.1:6379' }).ROLE).toBe(role);
    }
    expect(() => loadConfig({ ROLE: 'both' })).toThrow(/ROLE/);
    expect(() => loadConfig({ QUEUE_PREFIX: 'a:b' })).toThrow(/QUEUE_PREFIX/);
    expect(() => loadConfig({ QUEUE_STALLED_SECONDS: '0' })).toThrow(/QUEUE_STALLED_SECONDS/);
  });
});

describe('a job request as text', () => {
  it('keeps every field and a reference sample exactly, and drops what cannot cross processes', () => {
    const samples = new Float32Array([0, 0.5, -0.25, 1e-7, -1]);
    const signal = new AbortController().signal;
    const wire = toWire({
      text: 'Hello.',
      voiceId: 'espeak:en-us',
      format: 'mp3',
      speed: 1.25,
      pitch: -2,
      reference: { samples, sampleRate: 16000, text: 'ref' },
      signal,
      onProgress: () => {},
    });
    const back = fromWire(JSON.parse(JSON.stringify(wire)) as typeof wire);
    expect(back).toMatchObject({ text: 'Hello.', voiceId: 'espeak:en-us', format: 'mp3', speed: 1.25, pitch: -2 });
    expect([...back.reference!.samples]).toEqual([...samples]);
    expect(back.reference).toMatchObject({ sampleRate: 16000, text: 'ref' });
    expect('signal' in back).toBe(false);
    expect('onProgress' in back).toBe(false);
    // A sample that is a view into a larger buffer is sent as its own bytes only.
    const view = new Float32Array(new Float32Array([9, 9, 0.75, 9]).buffer, 8, 1);
    expect([...fromWire(toWire({ text: 'x', reference: { samples: view, sampleRate: 8000 } })).reference!.samples]).toEqual([
      0.75,
    ]);
    const voice = {
      id: 'espeak:en-us',
      name: 'English',
      gender: 'male' as const,
      languages: ['en-US'],
      model: 'espeak',
      engine: 'espeak',
      variant: 'en-us',
      profile: { pitchHz: 120, range: 50, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
      previewText: 'Hello.',
    };
    const data = {
      request: { ...wire, voice },
      voiceId: 'voice_espeak.en-us',
      charge: { accountId: 'acc_1', recordType: 'tts' },
    };
    expect(readPayload(synthesisJob, 'job_1', writePayload(synthesisJob, data))).toEqual(data);
  });

  it('carries the explicit AI label to the worker, and refuses one it does not know', () => {
    const wire = toWire({ text: 'Hello.', voiceId: 'espeak:en-us', aiLabel: { kind: 'speech', position: 'end' } });
    const back = fromWire(wireRequestSchema.parse(JSON.parse(JSON.stringify(wire))));
    expect(back.aiLabel).toEqual({ kind: 'speech', position: 'end' });
    expect(wireRequestSchema.safeParse({ ...wire, aiLabel: { kind: 'off', position: 'start' } }).success).toBe(false);
    expect(wireRequestSchema.safeParse({ ...wire, aiLabel: { kind: 'rhythm', position: 'middle' } }).success).toBe(false);
  });
});
