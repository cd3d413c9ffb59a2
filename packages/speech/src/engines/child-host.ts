/**
 * A helper process of plain Node that runs engine code which can crash the process it is in
 * (native aborts, WASI faults). Requests carry an id; a dead process fails its pending requests
 * with HostExit and is started again on the next request.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { lowerPriority } from '../threads/priority.ts';

export class HostExit extends Error {}

type Reply = { id: number; error?: string } & Record<string, unknown>;

export class ChildHost {
  private child: ChildProcess | undefined;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly entry: URL,
    private readonly execArgv: string[] = [],
  ) {}

  /** Whether the helper process is up (a request starts it). */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** Sends a request; if the process dies under it and `retry` is set, tries once more on a new one. */
  async request(payload: Record<string, unknown>, retry = false): Promise<Reply> {
    try {
      return await this.send(payload);
    } catch (e) {
      if (!(e instanceof HostExit) || !retry) throw e;
      return this.send(payload);
    }
  }

  private send(payload: Record<string, unknown>): Promise<Reply> {
    const child = this.start();
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.channel?.ref();
      // A process that died a moment ago has a closed channel: the write fails (EPIPE,
      // ERR_IPC_CHANNEL_CLOSED) here, as this request's failure, never as an uncaught 'error'.
      const failed = (err: Error | null): void => {
        if (!err || !this.pending.delete(id)) return;
        if (this.pending.size === 0) child.channel?.unref();
        reject(new HostExit(`helper process unreachable: ${err.message}`));
      };
      try {
        child.send({ ...payload, id }, failed);
      } catch (e) {
        failed(e as Error);
      }
    });
  }

  private start(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(fileURLToPath(this.entry), [], {
      execArgv: this.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    if (child.pid) lowerPriority(child.pid);
    child.unref();
    child.channel?.unref();
    child.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) child.channel?.unref();
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m);
    });
    // Errors of the process or its channel (a failed send is also given to its callback above).
    child.on('error', (err) => {
      if (this.child === child) this.child = undefined;
      const e = new HostExit(`helper process failed: ${err.message}`);
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const e = new HostExit(`helper process exited (${signal ?? code})`);
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    });
    this.child = child;
    return child;
  }

  async close(): Promise<void> {
    const c = this.child;
    this.child = undefined;
    if (c && c.exitCode === null && c.signalCode === null) {
      const done = new Promise((r) => c.once('exit', r));
      c.ref();
      c.kill();
      await done;
    }
  }
}
