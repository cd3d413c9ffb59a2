/**
 * Chunked synthesis: sentences go to the pool with a look-ahead as deep as the pool, and come
 * back in order, each yielded as soon as it and those before it are done. Remote engines are
 * I/O-bound and run here, one request ahead.
 */
import type { Engine, PcmChunk } from '../core/types.ts';
import type { WorkerPool } from '../pool/pool.ts';
import type { SynthesisJob } from '../pool/protocol.ts';
import { runEngine } from '../pipeline/run-engine.ts';
import { SILENT_DB } from '../text/markup.ts';
import { MAX_SPEED, MIN_SPEED, type Plan } from '../pipeline/plan.ts';
import { endOf, joinSentence, pauseMs, type JoinSpec } from '../pipeline/pauses.ts';

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

/** The speed a sentence of a plan is spoken at: the request's, times its markup's rate. */
function speedOf(plan: Plan, index: number): number {
  return Math.min(MAX_SPEED, Math.max(MIN_SPEED, plan.speed * (plan.parts?.[index]?.rate ?? 1)));
}

/** The unit of work for one sentence of a plan (`index`: its place, for a marked-up plan's own settings). */
export function sentenceJob(
  ctx: ChunkContext,
  plan: Plan,
  text: string,
  opts: { keepRates?: number[]; words?: boolean } = {},
  index = 0,
): SynthesisJob {
  const part = plan.parts?.[index];
  const voice = part?.voice ?? plan.voice;
  return {
    engine: voice.engine,
    voice,
    text,
    language: part?.language ?? plan.language,
    speed: speedOf(plan, index),
    pitch: Math.min(24, Math.max(-24, plan.pitch + (part?.pitch ?? 0))),
    profile: part?.profile ?? plan.profile,
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
  opts: { firstAlone?: boolean; keepRates?: number[]; words?: boolean; from?: number } = {},
): AsyncIterable<SentenceAudio> {
  const job = (index: number) => sentenceJob(ctx, plan, plan.sentences[index]!, opts, index);
  const remote = ctx.remoteEngines.get(plan.voice.engine);
  const run = remote
    ? (index: number) => runEngine(remote, job(index), signal)
    : ctx.localEngines.has(plan.voice.engine)
      ? (index: number) =>
          ctx.pool.synthesize(job(index), {
            urgent: opts.firstAlone === true && next === 0,
            // The worker joins the sentence (trims its edges, adds its pause): its samples are not copied here again.
            join: joinOf(plan, index),
            // Sentences still waiting for a worker when the caller leaves are taken out of the queue.
            ...(signal ? { signal } : {}),
          })
      : undefined;
  if (!run) throw new Error(`engine ${plan.voice.engine} is not configured`);

  const depth = remote ? 2 : Math.max(2, ctx.pool.size + 1);
  const inFlight: Promise<Awaited<ReturnType<typeof run>>>[] = [];
  // `from`: the sentences before it were made elsewhere (a stream's first, sent as its engine made it).
  const from = opts.from ?? 0;
  let next = from;
  let done = from;
  const total = plan.sentences.length;
  const fill = (): void => {
    // A stream's first sentence gets the machine to itself: the look-ahead would share its cores.
    const limit = opts.firstAlone && next === 0 ? 1 : depth;
    while (next < plan.sentences.length && inFlight.length < limit) {
      const p = run(next);
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
  for (let index = from; index < plan.sentences.length; index++) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    fill();
    const result = await inFlight.shift()!;
    // A stream's first sentence is encoded and sent before the look-ahead starts (at the next pull).
    if (!(opts.firstAlone && index === 0)) fill();
    const { samples, words } = remote
      ? joined(plan, index, result.samples, result.sampleRate, result.words)
      : { samples: result.samples, words: result.words };
    yield { index, text: plan.sentences[index]!, samples, sampleRate: result.sampleRate, words };
  }
}

/**
 * A sentence as it goes into the file: its edge silence between sentences trimmed and the pause its ending calls for
 * after it (`pipeline/pauses.ts`), or the markup's own (a `<break>` replaces it); a marked-up sentence's volume (after
 * the engine's loudness normalisation, so it is heard) and the lead before the first. The words move with the sound.
 */
export function joined(
  plan: Plan,
  index: number,
  samples: Float32Array,
  rate: number,
  words: PcmChunk['words'],
): { samples: Float32Array; words: PcmChunk['words'] } {
  return joinSentence(samples, rate, words, joinOf(plan, index));
}

/** How sentence `index` of a plan joins the others (applied where its samples are: a pool worker, or here). */
export function joinOf(plan: Plan, index: number): JoinSpec {
  const part = plan.parts?.[index];
  const inner = index < plan.sentences.length - 1;
  return {
    lead: index > 0,
    tail: inner,
    pauseMs: part?.pauseMs ?? (inner ? pauseMs(plan.ends?.[index] ?? endOf(plan.sentences[index]!), speedOf(plan, index)) : 0),
    leadMs: part?.leadMs ?? 0,
    gain: part?.volume === undefined ? 1 : part.volume <= SILENT_DB ? 0 : 10 ** (part.volume / 20),
  };
}
