/**
 * Models installed and removed from the operator's console (issue 30, point 8): the same installer `npm run models`
 * runs (install.ts: resumable checked downloads, safe unpacking, atomic install), as a background job of the process
 * that was asked, its progress written to `model_installs` so the console may poll any process. A model whose licence
 * does not allow commercial use is installed only when an owner confirms it (the route checks the role).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { readModelRecord } from '@polyvox/speech';
import type { Database, ModelInstallsTable } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Catalogue, CatalogueModel } from './catalogue.js';
import type { MessageLocale } from '@polyvox/contracts';
import { InstallError, type Progress } from './download.js';
import { installMessage, storedProblem } from './install-messages.js';
import { addModel, removeModel, type ModelsContext } from './install.js';

export interface InstallView {
  id: string;
  model: string;
  status: 'running' | 'succeeded' | 'failed';
  bytes_done: number;
  bytes_total: number;
  error: string | null;
  started_by: string;
  started_at: string;
  finished_at: string | null;
}

export interface CatalogueEntry {
  name: string;
  family: string;
  languages: string[];
  speakers: number;
  bytes: number;
  licence: { name: string; commercial: boolean; url: string | null };
  installed: boolean;
}

export interface InstalledModel {
  name: string;
  /** The licence recorded at install (null: a folder put there by hand, not by the installer). */
  licence: { name: string; commercial: boolean; url: string | null } | null;
  installed_at: string | null;
}

/** How often a running install writes its progress at most. */
const PROGRESS_EVERY_MS = 250;

export class ModelInstalls {
  private readonly db: Kysely<Database>;
  private readonly modelsDir: string;
  /** Where the catalogue is read (each time: a changed file is seen); tests give their own. */
  source: () => Catalogue;
  private readonly mirror: string | undefined;
  private readonly running = new Map<string, Promise<void>>();
  private readonly onError: (err: unknown) => void;

  constructor(options: {
    db: Kysely<Database>;
    modelsDir: string;
    catalogue: () => Catalogue;
    mirror?: string | undefined;
    onError?: (err: unknown) => void;
  }) {
    this.db = options.db;
    this.modelsDir = options.modelsDir;
    this.source = options.catalogue;
    this.mirror = options.mirror;
    this.onError = options.onError ?? (() => {});
  }

  /** The catalogue's model, or NOT_FOUND. */
  model(name: string): CatalogueModel {
    const m = this.source().models.get(name);
    if (!m) throw new AppError('NOT_FOUND');
    return m;
  }

  listCatalogue(): CatalogueEntry[] {
    return [...this.source().models.values()].map((m) => ({
      name: m.name,
      family: m.family,
      languages: m.languages,
      speakers: m.speakers,
      bytes: m.downloads.reduce((n, d) => n + d.bytes, 0),
      licence: { name: m.licence.name, commercial: m.licence.commercial, url: m.licence.url ?? null },
      installed: existsSync(path.join(this.modelsDir, m.name)),
    }));
  }

  /** The folders of MODELS_DIR, with the licence the installer recorded. */
  listInstalled(): InstalledModel[] {
    if (!existsSync(this.modelsDir)) return [];
    return readdirSync(this.modelsDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => {
        const record = readModelRecord(path.join(this.modelsDir, e.name));
        return {
          name: e.name,
          licence: record
            ? { name: record.licence.name, commercial: record.licence.commercial, url: record.licence.url ?? null }
            : null,
          installed_at: record?.installedAt ?? null,
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The latest installs, their failures told in `locale`. */
  async list(locale: MessageLocale = 'en', limit = 20): Promise<InstallView[]> {
    const rows = await this.db
      .selectFrom('model_installs')
      .selectAll()
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => view(r, locale));
  }

  async get(id: string, locale: MessageLocale = 'en'): Promise<InstallView> {
    const row = await this.db.selectFrom('model_installs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return view(row, locale);
  }

  /**
   * Starts installing `name` in the background and answers its job at once. Refused (CONFLICT-like VALIDATION_FAILED)
   * when the model is installed already or an install of it runs.
   */
  async start(name: string, by: string, db: Kysely<Database> = this.db): Promise<InstallView> {
    const m = this.model(name);
    if (existsSync(path.join(this.modelsDir, name)))
      throw new AppError('VALIDATION_FAILED', { field: 'name', rule: 'the model is installed already' });
    const busy = await db
      .selectFrom('model_installs')
      .select('id')
      .where('model', '=', name)
      .where('status', '=', 'running')
      // A process that died mid-install leaves its row running: one silent for half an hour no longer counts.
      .where('updated_at', '>', new Date(Date.now() - 30 * 60_000).toISOString())
      .executeTakeFirst();
    if (busy || this.running.has(name))
      throw new AppError('VALIDATION_FAILED', { field: 'name', rule: 'the model is being installed' });
    const at = nowIso();
    const row: ModelInstallsTable = {
      id: newId('modelInstall'),
      model: name,
      status: 'running',
      bytes_done: 0,
      bytes_total: m.downloads.reduce((n, d) => n + d.bytes, 0),
      error: null,
      started_by: by,
      started_at: at,
      updated_at: at,
      finished_at: null,
    };
    await db.insertInto('model_installs').values(row).execute();
    return view(row, 'en');
  }

  /** Runs a job `start` recorded (after the caller's transaction committed); resolves when it has ended. */
  run(job: InstallView): Promise<void> {
    const work = this.install(job).finally(() => this.running.delete(job.model));
    this.running.set(job.model, work);
    return work;
  }

  /** Removes an installed model (out of sight at once, then deleted); the engines drop it at their next poll. */
  remove(name: string): InstalledModel {
    const installed = this.listInstalled().find((m) => m.name === name);
    if (!installed) throw new AppError('NOT_FOUND');
    if (this.running.has(name)) throw new AppError('VALIDATION_FAILED', { field: 'name', rule: 'the model is being installed' });
    try {
      removeModel(this.context(silentProgress()), name);
    } catch (e) {
      if (e instanceof InstallError) throw new AppError('NOT_FOUND');
      throw e;
    }
    return installed;
  }

  /** Waits for the installs this process runs (at shutdown, and in tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  private context(progress: Progress): ModelsContext {
    return {
      modelsDir: this.modelsDir,
      catalogue: this.source(),
      io: { out: () => {}, err: () => {}, progress },
      ...(this.mirror ? { mirror: this.mirror } : {}),
    };
  }

  private async install(job: InstallView): Promise<void> {
    // Bytes of the downloads finished, plus the current one's; written at most every PROGRESS_EVERY_MS.
    let finished = 0;
    let current = 0;
    let writtenAt = 0;
    let writing: Promise<unknown> = Promise.resolve();
    const write = (force: boolean): void => {
      const now = Date.now();
      if (!force && now - writtenAt < PROGRESS_EVERY_MS) return;
      writtenAt = now;
      const done = Math.min(job.bytes_total, finished + current);
      writing = writing
        .then(() =>
          this.db
            .updateTable('model_installs')
            .set({ bytes_done: done, updated_at: nowIso() })
            .where('id', '=', job.id)
            .where('status', '=', 'running')
            .execute(),
        )
        .catch(this.onError);
    };
    const progress: Progress = {
      start(_label, _total, from) {
        current = from;
        write(true);
      },
      advance(n) {
        current += n;
        write(false);
      },
      end() {
        finished += current;
        current = 0;
        write(true);
      },
    };
    let error: string | null = null;
    try {
      await addModel(this.context(progress), job.model);
    } catch (e) {
      error = storedProblem(e);
      if (!(e instanceof InstallError)) this.onError(e);
    }
    await writing;
    await this.db
      .updateTable('model_installs')
      .set({
        status: error === null ? 'succeeded' : 'failed',
        ...(error === null ? { bytes_done: job.bytes_total } : {}),
        error,
        updated_at: nowIso(),
        finished_at: nowIso(),
      })
      .where('id', '=', job.id)
      .execute()
      .catch(this.onError);
  }
}

function silentProgress(): Progress {
  return { start() {}, advance() {}, end() {} };
}

function view(r: ModelInstallsTable, locale: MessageLocale): InstallView {
  return {
    id: r.id,
    model: r.model,
    status: r.status as InstallView['status'],
    bytes_done: Number(r.bytes_done),
    bytes_total: Number(r.bytes_total),
    error: installMessage(r.error, locale),
    started_by: r.started_by,
    started_at: r.started_at,
    finished_at: r.finished_at,
  };
}
