import type { CreditsService, Hold } from '../credits/service.js';
import { AppError } from '../platform/errors.js';
import { HeldWork } from './held-work.js';
import type { Charge, Prepared } from './types.js';

/** What paid work stopped by a shutdown fails with: a clean error, not a stack in the log. */
const shuttingDown = () => new AppError('INTERNAL', {}, { cause: new Error('server shutting down') });

/**
 * The paid work in flight in this process: each hold taken or adopted here as a `HeldWork`, and the work that may
 * yet take one. The shutdown stops them (after a grace) and waits for them; a disabled account's are stopped at once.
 */
export class WorkInFlight {
  private readonly active = new Set<HeldWork>();
  private readonly idle: (() => void)[] = [];
  private stopping = false;
  /** Work that may yet take a hold (a realtime piece being prepared): `drain` waits for it too. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly credits: CreditsService) {}

  /** A hold as a piece of work counted here until it is closed; stopped at once while the shutdown runs. */
  open(
    hold: Hold,
    prepared: Pick<Prepared, 'credits' | 'characters' | 'voiceId' | 'voice'>,
    charge: Charge,
    options: { signal?: AbortSignal | undefined; heldSince?: number | undefined } = {},
  ): HeldWork {
    const details = {
      characters: prepared.characters,
      voice_id: prepared.voiceId ?? prepared.voice.id,
      api_key_id: charge.apiKeyId ?? null,
      record_type: charge.recordType,
    };
    const work = new HeldWork({
      credits: this.credits,
      hold,
      charge: { amount: prepared.credits, details },
      signal: options.signal,
      onClosed: (w) => {
        this.active.delete(w);
        if (this.active.size === 0) for (const wake of this.idle.splice(0)) wake();
      },
      heldSince: options.heldSince,
    });
    this.active.add(work);
    if (this.stopping) work.abort(shuttingDown());
    return work;
  }

  /**
   * Shutdown: new work stops at once; work in flight gets `graceMs` to finish, then stops, and each
   * piece releases its hold as it stops.
   */
  async stopAll(graceMs: number): Promise<void> {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.drain(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const work of this.active) work.abort(shuttingDown());
  }

  /** Stops the account's work in flight here (a disabled account): each piece releases its hold as it stops. */
  stopAccount(accountId: string, reason: Error): number {
    let stopped = 0;
    for (const work of this.active)
      if (work.hold.accountId === accountId) {
        work.abort(reason);
        stopped += 1;
      }
    return stopped;
  }

  /** Counts `work` (which may take holds and closes them before it ends) as in flight until it ends. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    void work.then(
      () => this.pending.delete(work),
      () => this.pending.delete(work),
    );
    return work;
  }

  /** Resolves once every tracked piece of work has ended and every hold taken here is settled or released. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    if (this.active.size === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }
}
