import { z } from 'zod';
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
  done(end: Omit<RenderedAudio, 'audio'>): Promise<void>;
}

export const ttsJob = defineJob<TtsJobPayload, TtsJobContext>(
  'tts',
  z.object({ kind: z.enum(['file', 'stream']), request: wireRequestSchema, reqId: z.string().optional() }),
);

/** Runs the request on this process's engines and sends its audio on as it comes. */
export function ttsJobHandler(deps: { synthesizer: Synthesizer }): JobHandler<TtsJobPayload, TtsJobContext, void> {
  return async (payload, { signal, chunk, done }) => {
    const t0 = performance.now();
    const request = { ...fromWire(payload.request), signal };
    const engine = request.voice?.engine ?? 'unknown';
    if (payload.kind === 'stream') {
      for await (const audio of deps.synthesizer.synthesizeStream(request)) {
        signal.throwIfAborted();
        await chunk(audio);
      }
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
