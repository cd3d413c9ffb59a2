import type { QueryClient } from '@tanstack/react-query';
import type { Account } from '@polyvox/contracts';
import type { RequestQueue } from '../api/queue';
import type { BootstrapResult } from './bootstrap';
import type { SessionStatus } from './guards';

export const ME_KEY = ['accounts', 'me'] as const;

export interface SessionSnapshot {
  status: SessionStatus;
  /** The stored session was refused at start-up; cleared once the guard has acted on it. */
  loginFailed: boolean;
}

interface Deps {
  queue: RequestQueue;
  queryClient: QueryClient;
  bootstrap: () => Promise<BootstrapResult>;
  saveSid: (sid: string | null) => void;
  endSession: () => Promise<void>;
}

/**
 * Owns the session's life: start-up, sign-in, sign-out. The account itself lives in the query
 * cache under ME_KEY; requests wait in the queue whenever a session is being set up.
 */
export class SessionController {
  private snapshot: SessionSnapshot = { status: 'booting', loginFailed: false };
  private readonly listeners = new Set<() => void>();
  private running: Promise<void> | null = null;

  constructor(private readonly deps: Deps) {}

  getSnapshot = (): SessionSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(next: SessionSnapshot): void {
    this.snapshot = next;
    this.listeners.forEach((l) => l());
  }

  /** Idempotent while a start is in flight. */
  start(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<void> {
    const { queue, queryClient } = this.deps;
    queue.close();
    this.set({ status: 'booting', loginFailed: false });
    try {
      const result = await this.deps.bootstrap();
      queryClient.setQueryData(ME_KEY, result.account);
      queue.open();
      this.set({ status: 'ready', loginFailed: result.loginFailed });
    } catch (error) {
      queue.fail(error);
      this.set({ status: 'failed', loginFailed: false });
    }
  }

  acknowledgeLoginFailure(): void {
    if (this.snapshot.loginFailed) this.set({ ...this.snapshot, loginFailed: false });
  }

  /** The server stopped accepting the session mid-visit (revoked, expired): start over. */
  sessionLost(): void {
    if (this.snapshot.status !== 'ready' || this.running) return;
    this.deps.saveSid(null);
    this.deps.queryClient.clear();
    void this.start();
  }

  /** Sign-in or registration answered: adopt its session and account. */
  adopt(result: { account: Account; sid: string }): void {
    const { queryClient } = this.deps;
    this.deps.saveSid(result.sid);
    // What was cached belonged to the previous (anonymous) account.
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] || q.queryKey[1] !== ME_KEY[1] });
    queryClient.setQueryData(ME_KEY, result.account);
  }

  /**
   * Marks the session as changing at once (guards wait instead of redirecting), ends it on the
   * server, then starts a fresh anonymous one.
   */
  async signOut(): Promise<void> {
    this.set({ status: 'booting', loginFailed: false });
    try {
      await this.deps.endSession();
    } catch {
      // The session is dropped on this side whatever the server said.
    }
    this.deps.saveSid(null);
    this.deps.queryClient.clear();
    await this.start();
  }
}
