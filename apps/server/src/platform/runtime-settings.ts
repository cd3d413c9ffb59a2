import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Database } from './db/schema.js';
import { nowIso } from './db/database.js';

/**
 * A document of settings an operator changes while the platform runs (runtime_settings, one row per `name`): what
 * the operator set, over the values the process started with. Every process reads it through a short-lived cache
 * (`ttlMs`): `current()` answers at once from the copy last read and, when that copy is older than the cache's life,
 * reads it again in the background; a timer reads it each `ttlMs` too, so an idle process is never more than one
 * period behind. A change is therefore in force on every process within about `ttlMs`, with no restart.
 * The row's version is bumped at each change: `update` with an `expectVersion` refuses a change made since.
 */
export interface RuntimeSettingsOptions<T extends Record<string, unknown>> {
  db: Kysely<Database>;
  /** The row's name: one document per area (`settings`, `catalog`…). */
  name: string;
  /** The values the process started with (configuration, files): what a key the operator never set keeps. */
  base: T;
  /** What a stored override must satisfy (each key optional); a stored value that no longer does is ignored. */
  schema: z.ZodType<Partial<T>>;
  ttlMs?: number;
  /** The clock, for tests. */
  now?: () => number;
  /** Told when a background read fails (the copy read before stays in force). */
  onError?: (err: unknown) => void;
}

export interface SettingsSnapshot<T> {
  values: T;
  overrides: Partial<T>;
  version: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

export class VersionConflict extends Error {}

export class RuntimeSettings<T extends Record<string, unknown>> {
  private readonly opts: RuntimeSettingsOptions<T>;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private snapshot: SettingsSnapshot<T>;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<SettingsSnapshot<T>> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(opts: RuntimeSettingsOptions<T>) {
    this.opts = opts;
    this.ttlMs = opts.ttlMs ?? 2000;
    this.now = opts.now ?? Date.now;
    this.snapshot = { values: opts.base, overrides: {}, version: 0, updatedAt: null, updatedBy: null };
  }

  /** The values in force, from the copy last read (read again in the background when it is stale). */
  current(): T {
    if (this.now() - this.readAt >= this.ttlMs) void this.refresh().catch((err: unknown) => this.opts.onError?.(err));
    return this.snapshot.values;
  }

  /** The values with their overrides and version, read through the cache. */
  async read(): Promise<SettingsSnapshot<T>> {
    if (this.now() - this.readAt >= this.ttlMs) return this.refresh();
    return this.snapshot;
  }

  /** Reads the stored document now. */
  refresh(): Promise<SettingsSnapshot<T>> {
    this.reading ??= this.load().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  /** Reads the document every `ttlMs` until `stop()` (the timer does not keep the process alive). */
  start(): this {
    this.timer ??= setInterval(() => void this.refresh().catch((err: unknown) => this.opts.onError?.(err)), this.ttlMs).unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  get base(): T {
    return this.opts.base;
  }

  /**
   * Sets keys (a key set to its starting value keeps being an override: the operator chose it) in `db` (the caller's
   * transaction, where the change is audited in the same one). Returns the overrides before and after.
   */
  async update(
    patch: Partial<T>,
    by: string,
    db: Kysely<Database> = this.opts.db,
    expectVersion?: number,
  ): Promise<{ before: Partial<T>; after: Partial<T>; version: number }> {
    const parsed = this.opts.schema.parse(patch);
    const row = await db.selectFrom('runtime_settings').selectAll().where('name', '=', this.opts.name).executeTakeFirst();
    const version = row?.version ?? 0;
    if (expectVersion !== undefined && expectVersion !== version) throw new VersionConflict(`${this.opts.name} changed`);
    const before = row ? this.overridesOf(row.value) : {};
    const after = { ...before, ...parsed };
    const at = nowIso();
    const value = JSON.stringify(after);
    if (row) {
      const done = await db
        .updateTable('runtime_settings')
        .set({ value, version: version + 1, updated_at: at, updated_by: by })
        .where('name', '=', this.opts.name)
        .where('version', '=', version)
        .executeTakeFirst();
      // Another change landed between the read and this write: the caller's view of "before" is stale.
      if (Number(done.numUpdatedRows) !== 1) throw new VersionConflict(`${this.opts.name} changed`);
    } else {
      await db
        .insertInto('runtime_settings')
        .values({ name: this.opts.name, value, version: 1, updated_at: at, updated_by: by })
        .execute();
    }
    this.readAt = Number.NEGATIVE_INFINITY;
    return { before, after, version: version + 1 };
  }

  private overridesOf(value: string): Partial<T> {
    let raw: unknown;
    try {
      raw = JSON.parse(value);
    } catch {
      return {};
    }
    if (!raw || typeof raw !== 'object') return {};
    // Key by key: one value an older release stored and this one refuses does not drop the others.
    const out: Partial<T> = {};
    for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
      if (!Object.hasOwn(this.opts.base, key)) continue;
      const one = this.opts.schema.safeParse({ [key]: v });
      if (one.success && Object.hasOwn(one.data, key))
        (out as Record<string, unknown>)[key] = (one.data as Record<string, unknown>)[key];
    }
    return out;
  }

  private async load(): Promise<SettingsSnapshot<T>> {
    const startedAt = this.now();
    const row = await this.opts.db
      .selectFrom('runtime_settings')
      .selectAll()
      .where('name', '=', this.opts.name)
      .executeTakeFirst();
    const overrides = row ? this.overridesOf(row.value) : {};
    this.snapshot = {
      values: { ...this.opts.base, ...overrides },
      overrides,
      version: row?.version ?? 0,
      updatedAt: row?.updated_at ?? null,
      updatedBy: row?.updated_by ?? null,
    };
    this.readAt = startedAt;
    return this.snapshot;
  }
}

/**
 * An object whose properties read the values in force: `{ perMinute: 'VERIFY_PER_MINUTE' }` gives `{ get perMinute() }`
 * beside the `fixed` properties, so a service built with plain numbers follows a change without knowing where its
 * numbers come from. (Not to be spread: a spread reads each getter once.)
 */
export function liveView<T extends Record<string, unknown>, M extends Record<string, keyof T>, F extends object = object>(
  settings: { current(): T },
  map: M,
  fixed?: F,
): F & { readonly [K in keyof M]: T[M[K]] } {
  const view = { ...(fixed ?? {}) } as F & { [K in keyof M]: T[M[K]] };
  for (const [prop, key] of Object.entries(map)) {
    Object.defineProperty(view, prop, { enumerable: true, get: () => settings.current()[key as keyof T] });
  }
  return view;
}
