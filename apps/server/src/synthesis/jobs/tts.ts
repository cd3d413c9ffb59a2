import { z } from 'zod';
import type { Timings } from '@polyvox/speech';
import { metrics } from '../../platform/metrics.js';
import type { RenderedAudio, Synthesizer } from '../../speech/synthesizer.js';
import { fromWire, wireRequestSchema, type WireRequest } from '../wire.js';
import { defineJob, type JobHandler } from './definition.js';

/** An interactive request (a file or a stream someone waits on), as its queue message carries it to a worker. */
export interface TtsJobPayload {
  kind: 'file' | 'stream';
  request: WireRequest;
  reqId?: string;
}

/** What the worker gives the handler: the stop signal, and the request's output channel. */
export interface TtsJobContext {
  signal: AbortSignal;
  chunk(audio: Buffer): Promise<void>;
  /** A stream's alignment so far (a stream that asked for timings), sent before the audio it times. */
  timings(t: Timings): Promise<void>;
  done(end: Omit<RenderedAudio, 'audio'>): Promise<void>;
}

export const ttsJob = defineJob<TtsJobPayload, TtsJobContext>(
  'tts',
  z.object({ kind: z.enum(['file', 'stream']), request: wireRequestSchema, reqId: z.string().optional() }),
);

/** Runs the request on this process's engines and sends its audio on as it comes. */
export function ttsJobHandler(deps: { synthesizer: Synthesizer }): JobHandler<TtsJobPayload, TtsJobContext, void> {
  return async (payload, { signal, chunk, done, timings }) => {
    const t0 = performance.now();
    const request = { ...fromWire(payload.request), signal };
    const engine = request.voice?.engine ?? 'unknown';
    if (payload.kind === 'stream') {
      // Sent in order with the chunks: each sentence's alignment goes before its audio.
      // A failed send is awaited before the next chunk; marked handled so a stream stopped first leaves none behind.
      let sent = Promise.resolve();
      const onTimings = (t: Timings) => {
        sent = sent.then(() => timings(t));
        sent.catch(() => {});
      };
      const streamed = request.timings ? { ...request, onTimings } : request;
      for await (const audio of deps.synthesizer.synthesizeStream(streamed)) {
        await sent;
        signal.throwIfAborted();
        await chunk(audio);
      }
      await sent;
      await done({ durationSec: 0, cached: false });
      metrics.synthesis(engine, 'stream', (performance.now() - t0) / 1000, 0);
      return;
    }
    const result = await deps.synthesizer.synthesize(request);
    signal.throwIfAborted();
    await chunk(result.audio);
    await done({
      durationSec: result.durationSec,
      cached: result.cached,
      mark: result.mark ?? null,
      ...(result.timings ? { timings: result.timings } : {}),
    });
    if (!result.cached) metrics.synthesis(engine, 'file', (performance.now() - t0) / 1000, result.durationSec);
  };
}
