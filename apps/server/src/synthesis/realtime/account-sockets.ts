import type { AppError } from '../../platform/errors.js';

/**
 * The realtime sockets open in this process, by the account that pays for them, so an account that is disabled has
 * its sockets closed at once (each told why, its holds released as any closing socket's are).
 */
export class AccountSockets {
  private readonly open = new Map<string, Set<(error: AppError) => void>>();

  /** Registers a socket's end; returns what forgets it (called when the socket closes). */
  add(accountId: string, end: (error: AppError) => void): () => void {
    let set = this.open.get(accountId);
    if (!set) this.open.set(accountId, (set = new Set()));
    set.add(end);
    return () => {
      set.delete(end);
      if (set.size === 0 && this.open.get(accountId) === set) this.open.delete(accountId);
    };
  }

  /** Ends every socket of the account with `error`; returns how many there were. */
  endAll(accountId: string, error: AppError): number {
    const set = this.open.get(accountId);
    if (!set) return 0;
    this.open.delete(accountId);
    for (const end of set) end(error);
    return set.size;
  }

  /** How many sockets are open (all accounts). */
  get size(): number {
    let n = 0;
    for (const set of this.open.values()) n += set.size;
    return n;
  }
}
