import type { CreditsService, Hold } from '../credits/service.js';
import type { EntryDetails } from '../credits/ledger.js';

export interface HeldWorkOptions {
  credits: CreditsService;
  hold: Hold;
  /** What delivered work is settled for, and the ledger details of that entry. */
  charge: { amount: number; details: EntryDetails };
  /** The caller's signal: its abort aborts the work too. */
  signal?: AbortSignal;
  /** Called once the hold is closed (settled or released). */
  onClosed: (work: HeldWork) => void;
  /** When this process took the hold (`Date.now()` just before): only then is its deadline known here. */
  heldSince?: number;
}

/**
 * One piece of paid work and its hold. While the work runs the hold's deadline keeps moving, so the
 * sweeper (meant for holds a crashed process left behind) never frees credits of work still in
 * progress. The hold is closed exactly once: settled when the work is delivered, released otherwise.
 */
export class HeldWork {
  private readonly controller = new AbortController();
  private readonly keepAlive: NodeJS.Timeout;
  private closing: Promise<void> | null = null;
  /**
   * When the deadline was last known to lie a whole lifetime ahead (taken just before the hold or an extension
   * that succeeded), or null when that is unknown: a hold adopted from another process, or an extension that found
   * the hold no longer held.
   */
  private confirmedAt: number | null;
  readonly signal: AbortSignal;
  readonly hold: Hold;
  private readonly credits: CreditsService;
  private readonly charge: { amount: number; details: EntryDetails };
  private readonly onClosed: (work: HeldWork) => void;

  constructor(options: HeldWorkOptions) {
    const { credits, hold, signal: outer, heldSince } = options;
    this.credits = credits;
    this.hold = hold;
    this.charge = options.charge;
    this.onClosed = options.onClosed;
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
    this.confirmedAt = heldSince ?? null;
    // A third of the lifetime leaves two chances to extend before the deadline passes.
    const every = Math.max(100, (credits.config.hold_ttl_seconds * 1000) / 3);
    this.keepAlive = setInterval(() => {
      const before = Date.now();
      void credits
        .extend(hold.id)
        .then((extended) => {
          if (!extended) this.confirmedAt = null;
          else if (this.confirmedAt !== null) this.confirmedAt = Math.max(this.confirmedAt, before);
        })
        .catch(() => {});
    }, every);
    this.keepAlive.unref();
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  /** Stops the work (shutdown); whoever runs it releases the hold when it notices. */
  abort(reason: Error): void {
    this.controller.abort(reason);
  }

  /**
   * Makes sure the price is still held before the work is handed over: a hold that was swept is
   * taken again, and if the balance no longer covers it this throws INSUFFICIENT_BALANCE instead.
   */
  async ensureHeld(): Promise<void> {
    // A hold this process took or extended less than a third of its lifetime ago still has two thirds of it left:
    // the sweeper, which releases only holds past their deadline, cannot have taken it, so the database is not asked.
    const lifetimeMs = this.credits.config.hold_ttl_seconds * 1000;
    if (this.confirmedAt !== null && Date.now() - this.confirmedAt < lifetimeMs / 3) return;
    if ((await this.credits.holdStatus(this.hold.id)) === 'released') await this.credits.reclaim(this.hold.id);
  }

  /**
   * Leaves the hold open for another process to adopt (a queued job's worker): this process stops
   * extending it and no longer counts it as its own work.
   */
  handOver(): void {
    if (this.closing) return;
    clearInterval(this.keepAlive);
    this.closing = Promise.resolve();
    this.onClosed(this);
  }

  /**
   * Charges the work's price, or `part` of it (the credits and the characters they pay for) when only part of the work
   * was delivered; the rest of the hold returns in the same entry.
   */
  settle(part?: { amount: number; characters: number }): Promise<void> {
    const amount = part ? Math.min(part.amount, this.charge.amount) : this.charge.amount;
    const details = part ? { ...this.charge.details, characters: part.characters } : this.charge.details;
    return this.close(async () => {
      if (await this.credits.settle(this.hold.id, amount, details)) return;
      // Released behind our back (swept): charge it anyway, or fail loudly rather than give it away.
      if (!(await this.credits.reclaim(this.hold.id))) return;
      await this.credits.settle(this.hold.id, amount, details);
    });
  }

  release(note: string): Promise<void> {
    return this.close(async () => {
      await this.credits.release(this.hold.id, note);
    });
  }

  private close(action: () => Promise<void>): Promise<void> {
    if (!this.closing) {
      clearInterval(this.keepAlive);
      this.closing = action().finally(() => this.onClosed(this));
    }
    return this.closing;
  }
}
