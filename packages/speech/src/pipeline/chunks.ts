/**
 * Chunked synthesis: sentences go to the pool with a look-ahead as deep as the pool, and come
 * back in order, each yielded as soon as it and those before it are done. Remote engines are
 * I/O-bound and run here, one request ahead.
 */
import type { Engine, PcmChunk } from '../types.ts';
import type { WorkerPool } from '../pool/pool.ts';
import type { SynthesisJob } from '../pool/protocol.ts';
import { runEngine } from './run-engine.ts';
import type { Plan } from './plan.ts';

export interface SentenceAudio extends PcmChunk {
  index: number;
  text: string;
}

export interface ChunkContext {
  pool: WorkerPool;
  /** Engines that run in the pool (by id). */
  localEngines: ReadonlySet<string>;
  /** Engines that run in this thread. */
  remoteEngines: ReadonlyMap<string, Engine>;
  sampleRate: number;
}

/** The unit of work for one sentence of a plan. */
export function sentenceJob(
  ctx: ChunkContext,
  plan: Plan,
  text: string,
  opts: { keepRates?: number[]; words?: boolean } = {},
): SynthesisJob {
  return {
    engine: plan.voice.engine,
    voice: plan.voice,
    text,
    language: plan.language,
    speed: plan.speed,
    pitch: plan.pitch,
    profile: plan.profile,
    sampleRate: ctx.sampleRate,
    ...(opts.keepRates ? { keepRates: opts.keepRates } : {}),
    ...(opts.words ? { words: true } : {}),
    loudness: true,
    ...(plan.reference ? { reference: plan.reference } : {}),
  };
}

export async function* synthesizeChunks(
  ctx: ChunkContext,
  plan: Plan,
  signal?: AbortSignal,
  onProgress?: (p: { done: number; total: number }) => void,
  opts: { firstAlone?: boolean; keepRates?: number[]; words?: boolean } = {},
): AsyncIterable<SentenceAudio> {
  const job = (text: string) => sentenceJob(ctx, plan, text, opts);
  const remote = ctx.remoteEngines.get(plan.voice.engine);
  const run = remote
    ? (text: string) => runEngine(remote, job(text), signal)
    : ctx.localEngines.has(plan.voice.engine)
      ? (text: string) =>
          ctx.pool.synthesize(job(text), {
            urgent: opts.firstAlone === true && next === 0,
            // Sentences still waiting for a worker when the caller leaves are taken out of the queue.
            ...(signal ? { signal } : {}),
          })
      : undefined;
  if (!run) throw new Error(`engine ${plan.voice.engine} is not configured`);

  const depth = remote ? 2 : Math.max(2, ctx.pool.size + 1);
  const inFlight: Promise<Awaited<ReturnType<typeof run>>>[] = [];
  let next = 0;
  let done = 0;
  const total = plan.sentences.length;
  const fill = (): void => {
    // A stream's first sentence gets the machine to itself: the look-ahead would share its cores.
    const limit = opts.firstAlone && next === 0 ? 1 : depth;
    while (next < plan.sentences.length && inFlight.length < limit) {
      const p = run(plan.sentences[next]!);
      if (onProgress)
        void p.then(
          () => onProgress({ done: ++done, total }),
          () => {},
        );
      // Abandoned streams must not leave unhandled rejections behind.
      p.catch(() => {});
      inFlight.push(p);
      next++;
    }
  };
  for (let index = 0; index < plan.sentences.length; index++) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    fill();
    const result = await inFlight.shift()!;
    // A stream's first sentence is encoded and sent before the look-ahead starts (at the next pull).
    if (!(opts.firstAlone && index === 0)) fill();
    yield { index, text: plan.sentences[index]!, samples: result.samples, sampleRate: result.sampleRate, words: result.words };
  }
}
