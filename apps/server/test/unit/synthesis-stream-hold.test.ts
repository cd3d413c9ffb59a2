import { describe, expect, it, vi } from 'vitest';
import type { SynthesisRequest } from '@polyvox/speech';
import type { CreditsService } from '../../src/credits/service.js';
import { AppError } from '../../src/platform/errors.js';
import type { SpeechHost } from '../../src/speech/speech-host.js';
import type { Synthesizer } from '../../src/speech/synthesizer.js';
import { SynthesisService, type Prepared } from '../../src/synthesis/service.js';
import type { VoicesService } from '../../src/voices/service.js';

/** A hold the test answers when it chooses, and a synthesizer that records when its stream starts. */
function parts() {
  const events: string[] = [];
  let answer!: { resolve: (v: unknown) => void; reject: (e: unknown) => void };
  let signal: AbortSignal | undefined;
  const credits = {
    config: { hold_ttl_seconds: 900 },
    hold: vi.fn(
      () =>
        new Promise((resolve, reject) => {
          events.push('hold asked');
          answer = { resolve, reject };
        }),
    ),
    settle: vi.fn(async () => {
      events.push('settled');
      return true;
    }),
    release: vi.fn(async () => {
      events.push('released');
      return true;
    }),
  };
  const synthesizer = {
    async *synthesizeStream(request: SynthesisRequest) {
      events.push('synthesis started');
      signal = request.signal;
      yield Buffer.from('first');
      yield Buffer.from('second');
    },
  };
  const service = new SynthesisService({
    host: { get: async () => ({}) } as unknown as SpeechHost,
    voices: {} as VoicesService,
    credits: credits as unknown as CreditsService,
    synthesizer: synthesizer as unknown as Synthesizer,
  });
  const prepared = {
    request: { text: 'Hello there. And more.', format: 'mp3' },
    voice: { id: 'espeak:en-us', engine: 'espeak-ng' },
    voiceId: 'voice_espeak.en-us',
    characters: 19,
    credits: 19,
    contentType: 'audio/mpeg',
  } as unknown as Prepared;
  const hold = { id: 'hold_1', accountId: 'acc_1', amount: 19, apiKeyId: null };
  return { service, prepared, events, answer: () => answer, held: () => answer.resolve(hold), signal: () => signal };
}

const charge = { accountId: 'acc_1', recordType: 'tts' };
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('a stream and its hold', () => {
  it('starts the first sentence while the price is held, and gives no audio before the hold exists', async () => {
    const { service, prepared, events, held } = parts();
    const stream = service.stream(prepared, charge, new AbortController().signal);
    let given = false;
    const first = stream.next().then((r) => ((given = true), r));
    await vi.waitFor(() => expect(events).toContain('hold asked'));
    // The synthesis was under way before the hold was asked for, not after it was granted.
    expect(events.slice(0, 2)).toEqual(['synthesis started', 'hold asked']);
    await turns(5);
    expect(given).toBe(false);
    held();
    expect((await first).value?.toString()).toBe('first');
    expect((await stream.next()).value?.toString()).toBe('second');
    expect(await stream.next()).toEqual({ done: true, value: true });
    expect(events.at(-1)).toBe('settled');
  });

  it('stops the synthesis when the hold is refused, and answers the refusal', async () => {
    const { service, prepared, events, answer, signal } = parts();
    const stream = service.stream(prepared, charge, new AbortController().signal);
    const first = stream.next();
    await vi.waitFor(() => expect(events).toContain('hold asked'));
    answer().reject(new AppError('INSUFFICIENT_BALANCE'));
    await expect(first).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(signal()?.aborted).toBe(true);
    expect(events).not.toContain('settled');
  });
});
