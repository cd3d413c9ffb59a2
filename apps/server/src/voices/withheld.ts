import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';

/**
 * The official voices taken down after a report (`voice_takedowns`): the library leaves them out everywhere. Read
 * from the database and kept for `ttlMs`, so a takedown in another process is in force here within that time; the
 * process that takes a voice down forgets its copy at once.
 */
export class WithheldVoices {
  private copy: { ids: Set<string>; readAt: number } | null = null;
  private reading: Promise<Set<string>> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ttlMs = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  async ids(): Promise<Set<string>> {
    if (this.copy && this.now() - this.copy.readAt < this.ttlMs) return this.copy.ids;
    this.reading ??= (async () => {
      try {
        const rows = await this.db.selectFrom('voice_takedowns').select('voice_id').execute();
        const ids = new Set(rows.map((r) => r.voice_id));
        // The same set while nothing changed: the library's filtered copy is kept as long.
        this.copy = { ids: this.copy && sameSet(this.copy.ids, ids) ? this.copy.ids : ids, readAt: this.now() };
        return this.copy.ids;
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  invalidate(): void {
    this.copy = null;
  }
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
