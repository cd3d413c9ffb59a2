import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob, JobPayloadError, readPayload, writePayload } from '../../src/synthesis/jobs/definition.js';
import { handle, JobLayer } from '../../src/synthesis/jobs/layer.js';
import { DatabaseJobProvider } from '../../src/synthesis/jobs/database.js';
import { JOB_KINDS } from '../../src/synthesis/jobs/kinds.js';
import { synthesisJob } from '../../src/synthesis/jobs/synthesis.js';
import { ttsJob } from '../../src/synthesis/jobs/tts.js';

const echo = defineJob<{ n: number }, { seen: number[] }, number>('echo', z.object({ n: z.number().int() }));
const other = defineJob<{ s: string }>('other', z.object({ s: z.string() }));

describe('the job layer', () => {
  it('refuses to start while a kind has no handler, naming the kind', () => {
    const layer = new JobLayer({
      kinds: [echo, other],
      handlers: [handle(echo, async ({ n }) => n)],
      provider: new DatabaseJobProvider(),
    });
    expect(() => layer.start()).toThrow(/no handler registered for job kind "other"/);
    // Not started: no handler is given out.
    expect(() => layer.handler(echo)).toThrow(/not started/);
  });

  it("refuses this release's kinds without a handler for each", () => {
    const layer = new JobLayer({
      kinds: JOB_KINDS,
      handlers: [handle(synthesisJob, async () => ({ storageKey: 'jobs/x' }))],
      provider: new DatabaseJobProvider(),
    });
    expect(() => layer.start()).toThrow(/"studio_convert", "tts"|"tts", "studio_convert"/);
    expect(JOB_KINDS.map((k) => k.name).sort()).toEqual(['studio_convert', 'synthesis', 'tts']);
  });

  it('refuses a handler for a kind it does not know, and two handlers for one kind', () => {
    expect(() =>
      new JobLayer({
        kinds: [echo],
        handlers: [handle(echo, async () => 1), handle(other, async () => {})],
        provider: new DatabaseJobProvider(),
      }).start(),
    ).toThrow(/unknown job kind "other"/);
    expect(
      () =>
        new JobLayer({
          kinds: [echo],
          handlers: [handle(echo, async () => 1), handle(echo, async () => 2)],
          provider: new DatabaseJobProvider(),
        }),
    ).toThrow(/two handlers/);
  });

  it('runs a started kind through its handler', async () => {
    const layer = new JobLayer({
      kinds: [echo, other],
      handlers: [handle(echo, async ({ n }, ctx) => (ctx.seen.push(n), n * 2)), handle(other, async () => {})],
      provider: new DatabaseJobProvider(),
    }).start();
    const seen: number[] = [];
    expect(await layer.handler(echo)(layer.read(echo, 'job_1', '{"n":21}'), { seen })).toBe(42);
    expect(seen).toEqual([21]);
  });
});

describe('stored payloads', () => {
  it('read back as written', () => {
    expect(readPayload(echo, 'job_1', writePayload(echo, { n: 3 }))).toEqual({ n: 3 });
  });

  it('fail with which job and what is wrong, for text that is not JSON or not the schema', () => {
    expect(() => readPayload(echo, 'job_1', '{not json')).toThrow(JobPayloadError);
    expect(() => readPayload(echo, 'job_1', '{not json')).toThrow(/stored payload of echo job job_1 is invalid: not JSON/);
    expect(() => readPayload(echo, 'job_2', '{"n":"three"}')).toThrow(/echo job job_2 is invalid: n: /);
    expect(() => readPayload(echo, 'job_3', 'null')).toThrow(/job_3 is invalid: \(payload\)/);
    // A queue message (already parsed) is checked the same way.
    expect(() => readPayload(ttsJob, 'tts_1', { kind: 'poem', request: { text: 'x' } })).toThrow(
      /tts job tts_1 is invalid: kind/,
    );
  });

  it("fail a synthesis job's payload without its voice, charge or whole reference samples", () => {
    const charge = { accountId: 'acc_1', recordType: 'tts' };
    const text = (payload: unknown) => JSON.stringify(payload);
    expect(() => readPayload(synthesisJob, 'job_1', text({ request: { text: 'x' }, voiceId: 'v', charge }))).toThrow(
      /request\.voice: a job request carries its voice/,
    );
    expect(() => readPayload(synthesisJob, 'job_1', text({ request: { text: 'x' }, voiceId: 'v' }))).toThrow(/charge/);
    const voice = {
      id: 'espeak:en-us',
      name: 'English',
      gender: 'male',
      languages: ['en-US'],
      model: 'espeak',
      engine: 'espeak',
      variant: 'en-us',
      profile: { pitchHz: 120, range: 50, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
      previewText: 'Hello.',
    };
    const reference = { samples: Buffer.from([1, 2, 3]).toString('base64'), sampleRate: 16000 };
    expect(() =>
      readPayload(synthesisJob, 'job_1', text({ request: { text: 'x', voice, reference }, voiceId: 'v', charge })),
    ).toThrow(/request\.reference\.samples: whole 32-bit samples/);
    expect(readPayload(synthesisJob, 'job_1', text({ request: { text: 'x', voice }, voiceId: 'v', charge })).voiceId).toBe('v');
  });
});
