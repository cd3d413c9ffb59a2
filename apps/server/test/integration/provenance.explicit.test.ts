/**
 * The explicit, audible AI label (GB 45438-2025): the operator's setting puts the rhythm cue or a spoken notice into
 * every file and stream (whole and streamed, wav and mp3, jobs, the OpenAI route), before or after the speech; a
 * request may add a label or ask for a stronger one, never remove one; the notice is never charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '@polyvox/speech';
import { decodeWav } from '@polyvox/speech/formats';
import { cueAtEnd, cueAtStart } from '../../../../packages/speech/test/support/rhythm.js';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { eventually, heldHolds } from '../support/leave.js';

const TEXT = 'Every file says that it was made by a machine. This one does too.';
const VOICE = 'voice_espeak.en-us';

/** Whether measured tones and gaps are the cue's short–long–short–short (ms, within the envelope's blurring). */
function isCue(m: { tones: number[]; gaps: number[] }): boolean {
  const want = [100, 300, 100, 100];
  return (
    m.tones.length === 4 &&
    m.tones.every((ms, i) => Math.abs(ms - want[i]!) < 15) &&
    m.gaps.length === 3 &&
    m.gaps.every((ms) => Math.abs(ms - 100) < 15)
  );
}

async function pcmOf(bytes: Buffer, format: 'wav' | 'mp3'): Promise<{ samples: Float32Array; sampleRate: number }> {
  // A wav is read by its own parser (past the AIGC and C2PA chunks), an mp3 decoded by ffmpeg as a player would.
  return format === 'wav' ? decodeWav(bytes) : decodeAudio(bytes, 'mp3');
}

interface Setup {
  t: TestApp;
  c: Client;
  accountId: string;
}

async function setUp(dialect: (typeof DIALECTS)[number], env: Record<string, string>, name: string): Promise<Setup> {
  const t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', ...env } });
  const c = new Client(t.url);
  await c.anonymous();
  const accountId = ((await signIn(c, t.outbox, `${name}-${dialect}@example.com`)) as { id: string }).id;
  await givePlan(t, accountId);
  return { t, c, accountId };
}

async function audio(s: Setup, url: string, body: unknown) {
  const res = await fetch(`${s.t.url}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': s.c.sid! },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${bytes.toString()}`);
  return { headers: res.headers, bytes, duration: Number(res.headers.get('x-audio-duration')) };
}

describe.each(DIALECTS)('explicit AI label (%s)', (dialect) => {
  describe('the operator requires the rhythm cue at the start', () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setUp(dialect, { AI_LABEL_EXPLICIT: 'rhythm' }, 'rhythm');
    }, 240_000);
    afterAll(() => s?.t.close());

    it('says so in /tts/config', async () => {
      const config = await s.c.get('/tts/config');
      expect(config.body).toMatchObject({ ai_label_explicit: 'rhythm', ai_label_position: 'start' });
    });

    it.each(['wav', 'mp3'] as const)('starts every %s with the cue, whole and streamed', async (format) => {
      for (const stream of [false, true]) {
        const { bytes } = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format, stream });
        const pcm = await pcmOf(bytes, format);
        const m = cueAtStart(pcm.samples, pcm.sampleRate);
        expect(isCue(m), `${format} stream=${stream}: ${JSON.stringify(m)}`).toBe(true);
        // Nothing before it but an encoder's own delay, and a pause after it before the speech.
        expect(m.startMs).toBeLessThan(60);
        expect(m.silenceAfterMs).toBeGreaterThanOrEqual(240);
      }
    });

    it('labels the OpenAI route and a job the same way', async () => {
      const openai = await audio(s, '/v1/audio/speech', { model: 'tts-1', input: TEXT, voice: 'alloy', response_format: 'wav' });
      expect(isCue(cueAtStart(decodeWav(openai.bytes).samples, decodeWav(openai.bytes).sampleRate))).toBe(true);
      const job = await s.c.post('/tts/jobs', { text: TEXT, voice_id: VOICE, format: 'wav' });
      expect(job.status).toBe(202);
      expect(
        await eventually(async () => (await s.c.get(`/tts/jobs/${job.body.id}`)).body.status === 'succeeded', 1200, 50),
      ).toBe(true);
      const file = await fetch(`${s.t.url}/tts/jobs/${job.body.id}/audio`, { headers: { 'x-sid': s.c.sid! } });
      const wav = decodeWav(Buffer.from(await file.arrayBuffer()));
      expect(isCue(cueAtStart(wav.samples, wav.sampleRate))).toBe(true);
    });

    it('refuses a request that asks for no label, and charges nothing for it', async () => {
      const before = await s.t.ctx.credits.balance(s.accountId);
      const res = await s.c.post('/tts', { text: TEXT, voice_id: VOICE, format: 'wav', ai_label: 'off' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      const openai = await s.c.post('/v1/audio/speech', { model: 'tts-1', input: TEXT, voice: 'alloy', ai_label: 'off' });
      expect(openai.status).toBe(400);
      expect(await s.t.ctx.credits.balance(s.accountId)).toBe(before);
    });

    it('gives a spoken notice to a request that asks for one', async () => {
      const cue = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'wav' });
      const spoken = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'wav', ai_label: 'speech' });
      const wav = decodeWav(spoken.bytes);
      expect(isCue(cueAtStart(wav.samples, wav.sampleRate))).toBe(false);
      // "This content was generated by AI." is longer than the cue's 0.9 s.
      expect(spoken.duration - cue.duration).toBeGreaterThan(0.5);
      expect(spoken.headers.get('x-characters')).toBe(cue.headers.get('x-characters'));
    });
  });

  describe('the operator requires no label', () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setUp(dialect, {}, 'nolabel');
    }, 240_000);
    afterAll(() => s?.t.close());

    it('adds what a request asks for, and charges the unlabelled price for the notice', async () => {
      const config = await s.c.get('/tts/config');
      expect(config.body).toMatchObject({ ai_label_explicit: 'off', ai_label_position: 'start' });
      const estimate = (await s.c.post('/tts/estimate', { text: TEXT, voice_id: VOICE })).body;
      const plain = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'wav' });
      const plainWav = decodeWav(plain.bytes);
      expect(isCue(cueAtStart(plainWav.samples, plainWav.sampleRate))).toBe(false);

      const cued = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'wav', ai_label: 'rhythm' });
      const cuedWav = decodeWav(cued.bytes);
      expect(isCue(cueAtStart(cuedWav.samples, cuedWav.sampleRate))).toBe(true);
      // The cue (four tones and three gaps: 0.9 s) and its pause (0.25 s), nothing else.
      // (Within 20 ms: a loaded run saw 1.159 s once; the speech after the cue is the engine's own length.)
      expect(Math.abs(cued.duration - plain.duration - 1.15)).toBeLessThan(0.02);
      expect(cued.headers.get('x-cache')).toBe('miss');

      const before = await s.t.ctx.credits.balance(s.accountId);
      const spoken = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'mp3', ai_label: 'speech' });
      const plainMp3 = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'mp3' });
      // "This content was generated by AI." as eSpeak reads it (about 2 s), and its pause.
      expect(spoken.duration - plainMp3.duration).toBeGreaterThan(1.5);
      expect(spoken.duration - plainMp3.duration).toBeLessThan(3.5);
      for (const r of [spoken, plainMp3]) {
        expect(Number(r.headers.get('x-credits-charged'))).toBe(estimate.credits);
        expect(Number(r.headers.get('x-characters'))).toBe(estimate.characters);
      }
      expect(await s.t.ctx.credits.balance(s.accountId)).toBe(before - 2 * estimate.credits);
      // Each file's hold is settled once its reply has been written out, just after the client has it.
      const settled = async () =>
        (
          await s.t.ctx.db.kysely
            .selectFrom('credit_ledger')
            .select(['characters', 'charge'])
            .where('account_id', '=', s.accountId)
            .where('kind', '=', 'settle')
            .orderBy('created_at', 'desc')
            .limit(2)
            .execute()
        ).map((r) => ({ characters: r.characters, charge: Number(r.charge) }));
      const unlabelled = { characters: estimate.characters, charge: estimate.credits };
      expect(await eventually(async () => (await heldHolds(s.t, s.accountId)).length === 0)).toBe(true);
      expect(await settled()).toEqual([unlabelled, unlabelled]);
    });

    it('adds the cue on the OpenAI route as an extension field', async () => {
      const res = await audio(s, '/v1/audio/speech', {
        model: 'tts-1',
        input: TEXT,
        voice: 'alloy',
        response_format: 'mp3',
        ai_label: 'rhythm',
      });
      const pcm = await decodeAudio(res.bytes, 'mp3');
      expect(isCue(cueAtStart(pcm.samples, pcm.sampleRate))).toBe(true);
    });
  });

  describe('the operator requires a spoken notice at the end', () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setUp(dialect, { AI_LABEL_EXPLICIT: 'speech', AI_LABEL_POSITION: 'end' }, 'notice');
    }, 240_000);
    afterAll(() => s?.t.close());

    it('keeps the notice when a request asks for the cue: the same audio, from the same cache entry', async () => {
      const config = await s.c.get('/tts/config');
      expect(config.body).toMatchObject({ ai_label_explicit: 'speech', ai_label_position: 'end' });
      const operator = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'wav' });
      const asked = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format: 'wav', ai_label: 'rhythm' });
      expect(operator.headers.get('x-cache')).toBe('miss');
      expect(asked.headers.get('x-cache')).toBe('hit');
      expect(asked.duration).toBe(operator.duration);
      const wav = decodeWav(asked.bytes);
      expect(isCue(cueAtEnd(wav.samples, wav.sampleRate))).toBe(false);
      expect(isCue(cueAtStart(wav.samples, wav.sampleRate))).toBe(false);
    });
  });

  describe('the operator requires the cue at the end', () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setUp(dialect, { AI_LABEL_EXPLICIT: 'rhythm', AI_LABEL_POSITION: 'end' }, 'cue-end');
    }, 240_000);
    afterAll(() => s?.t.close());

    it.each(['wav', 'mp3'] as const)('ends every %s with the cue, whole and streamed', async (format) => {
      for (const stream of [false, true]) {
        const { bytes } = await audio(s, '/tts', { text: TEXT, voice_id: VOICE, format, stream });
        const pcm = await pcmOf(bytes, format);
        const m = cueAtEnd(pcm.samples, pcm.sampleRate);
        expect(isCue(m), `${format} stream=${stream}: ${JSON.stringify(m)}`).toBe(true);
        expect(m.silenceBeforeMs).toBeGreaterThanOrEqual(240);
      }
    });
  });
});
