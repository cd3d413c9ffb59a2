/**
 * Watching MODELS_DIR: a poll (and `rescanModels()`) reads the folder again; a change re-reads the voice library and
 * is told to the listeners (the server's catalogue), each listener's failure its own.
 */
import type { ModelsChange } from '../engines/sherpa.ts';
import type { VoiceLibrary } from './library.ts';

export class ModelWatch {
  private readonly listeners = new Set<(change: ModelsChange) => void>();
  private readonly poll: ReturnType<typeof setInterval> | undefined;

  /** `pollMs`: how often MODELS_DIR is read (0: only by `rescan()`). */
  constructor(
    private readonly library: VoiceLibrary,
    pollMs: number,
  ) {
    const sherpa = library.sherpa;
    this.poll = sherpa && pollMs > 0 ? setInterval(() => this.changed(sherpa.refreshIfChanged(true)), pollMs).unref() : undefined;
  }

  /** A rescan's outcome: when models came, went or changed, the library is read again and the listeners told. */
  changed(change: ModelsChange | undefined): ModelsChange {
    change ??= { added: [], removed: [], changed: [], problems: this.library.sherpa?.problems ?? [] };
    if (change.added.length || change.removed.length || change.changed.length) {
      this.library.read();
      this.tell(change);
    }
    return change;
  }

  /** Reads MODELS_DIR now. */
  rescan(): ModelsChange {
    return this.changed(this.library.sherpa?.rescan());
  }

  /** Tells every listener of a change. */
  tell(change: ModelsChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /** Returns the unsubscribe. */
  on(listener: (change: ModelsChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.poll) clearInterval(this.poll);
  }
}
