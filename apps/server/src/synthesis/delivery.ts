import type { SynthesisRequest } from '@polyvox/speech';
import { metrics } from '../platform/metrics.js';
import type { Synthesizer } from '../speech/synthesizer.js';
import type { SpeechHost } from '../speech/speech-host.js';
import { toAppError } from '../speech/errors.js';
import type { HeldWork } from './held-work.js';
import type { Charge, Prepared, Progress, RenderedAudio, Synthesized } from './types.js';

/** What delivering prepared audio needs of the service: the engines, where the audio is made, and its holds. */
export interface Delivery {
  host: SpeechHost;
  synthesizer: Synthesizer;
  hold(prepared: Prepared, charge: Charge, signal?: AbortSignal, ownHold?: boolean): Promise<HeldWork>;
}

/** Runs a whole file through the synthesizer (here or, with a queue, in a worker process). */
function synthesizeFile(deps: Delivery, request: SynthesisRequest, reqId: string | undefined): Promise<RenderedAudio> {
  return deps.synthesizer.synthesize(request, reqId ? { reqId } : {});
}

/**
 * Holds the price, synthesizes, and returns the audio with its hold still open: the caller settles
 * once the audio is delivered and releases if it is not. A failure releases the hold here.
 *
 * Without a hold of the caller's (`opts.work`, a job's), the hold is taken while synthesis
 * already runs: nothing is returned before the hold exists, a refused hold (402) stops the
 * synthesis and is what the caller gets, and a synthesis that fails releases the hold.
 */
export async function render(
  deps: Delivery,
  prepared: Prepared,
  charge: Charge,
  opts: { signal?: AbortSignal; onProgress?: Progress; work?: HeldWork; reqId?: string } = {},
): Promise<{ result: Synthesized; work: HeldWork }> {
  // The engines (here, or the request's preparation in an API process) are up before anything is held.
  await deps.host.get();
  // A caller that left while the request was prepared is not held, let alone charged.
  opts.signal?.throwIfAborted();
  const t0 = performance.now();
  // Stops the synthesis when the hold is refused, or when the held work is stopped.
  const stop = new AbortController();
  const request = {
    ...prepared.request,
    signal: opts.work ? opts.work.signal : opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  };
  const synthesized = opts.work ? undefined : synthesizeFile(deps, request, opts.reqId);
  // Awaited below once the hold is taken; a refused hold leaves its failure unread.
  synthesized?.catch(() => {});
  let work: HeldWork;
  try {
    work = opts.work ?? (await deps.hold(prepared, charge, opts.signal, true));
  } catch (e) {
    stop.abort(e);
    throw e;
  }
  const held = performance.now() - t0;
  const stopWith = () => stop.abort(work.signal.reason);
  if (work.signal.aborted) stopWith();
  else work.signal.addEventListener('abort', stopWith, { once: true });
  try {
    // Synthesis time counts from its start, which a concurrent hold did not hold back.
    const t1 = synthesized ? t0 : performance.now();
    const result = await (synthesized ?? synthesizeFile(deps, request, opts.reqId));
    // A cache hit never looks at the signal; a caller that left must not pay for it either.
    work.signal.throwIfAborted();
    const t2 = performance.now();
    // A cache hit made no audio: only real synthesis counts towards time and real-time factor.
    if (!result.cached)
      metrics.synthesis(prepared.voice.engine, opts.work ? 'job' : 'file', (t2 - t1) / 1000, result.durationSec);
    await work.ensureHeld();
    const timings = { hold: held, synth: t2 - t1, settle: performance.now() - t2 };
    const mark = result.mark ?? null;
    const alignment = result.timings ? { alignment: result.timings } : {};
    return {
      result: { audio: result.audio, durationSec: result.durationSec, cached: result.cached, mark, timings, ...alignment },
      work,
    };
  } catch (e) {
    await work.release(work.signal.aborted ? 'stopped before delivery' : 'synthesis failed');
    throw toAppError(e);
  } finally {
    work.signal.removeEventListener('abort', stopWith);
  }
}

/**
 * Yields encoded audio as it is made and returns true once all of it is out. The price is held on
 * the first `next()` (a generator that never starts holds nothing), settled after the last chunk,
 * and released if synthesis fails, the consumer calls `return()`, or `signal` or the shutdown stops
 * it, even while it waits at a chunk nobody reads; stopping also kills the encoder.
 */
export function stream(
  deps: Delivery,
  prepared: Prepared,
  charge: Charge,
  signal: AbortSignal,
  reqId?: string,
  /** Told the hold's id once it is taken (the history prices the item by its settlement). */
  onHold?: (holdId: string) => void,
): AsyncGenerator<Buffer, boolean> {
  const generator = (async function* guarded(): AsyncGenerator<Buffer, boolean> {
    await deps.host.get();
    if (signal.aborted) return false;
    const work = await deps.hold(prepared, charge, signal);
    onHold?.(work.hold.id);
    work.signal.addEventListener('abort', () => void generator.return(false).catch(() => {}), { once: true });
    let complete = false;
    const started = performance.now();
    try {
      work.signal.throwIfAborted();
      for await (const chunk of deps.synthesizer.synthesizeStream(
        { ...prepared.request, signal: work.signal },
        reqId ? { reqId } : {},
      )) {
        work.signal.throwIfAborted();
        yield chunk;
      }
      complete = true;
      // A stream's audio length is not known here; its time counts, its real-time factor does not.
      metrics.synthesis(prepared.voice.engine, 'stream', (performance.now() - started) / 1000, 0);
    } catch (e) {
      throw toAppError(e);
    } finally {
      await (complete ? work.settle() : work.release('stream ended early'));
    }
    return true;
  })();
  return generator;
}
