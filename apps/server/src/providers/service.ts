import { storedDetail, storedFailure, storedVoices } from './test-messages.js';
import type { Kysely } from 'kysely';
import { testRemoteProvider, isSpeechError, type RemoteOptions } from '@polyvox/speech';
import type { Database, RemoteProvidersTable } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';
import { seal, unseal } from '../platform/crypto.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';

/**
 * Remote speech providers added in the console (issue 30, point 8): OpenAI-compatible and ElevenLabs endpoints.
 * The key is sealed with the server secret (AES-256-GCM, platform/crypto.ts) and never leaves again: a view carries
 * its last four characters only. At most one provider of a kind is enabled (the engines have one of each: `openai`,
 * `elevenlabs`); enabling one turns the other of its kind off. The environment's provider (OPENAI_TTS_URL and
 * OPENAI_TTS_KEY, ELEVENLABS_URL and ELEVENLABS_KEY) wins over the console's where it is set.
 */
export const PROVIDER_KINDS = ['openai', 'elevenlabs'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

const SEAL_PURPOSE = 'remote-provider-key';

export interface ProviderView {
  id: string;
  kind: ProviderKind;
  name: string;
  url: string;
  model: string | null;
  key_hint: string;
  enabled: boolean;
  /** The environment configures this kind: it is the one in use, whatever this row says. */
  overridden_by_env: boolean;
  last_test: { at: string; ok: boolean; message: string | null } | null;
  created_at: string;
  updated_at: string;
}

export interface ProviderInput {
  kind: ProviderKind;
  name: string;
  url: string;
  model?: string | null | undefined;
  key: string;
}

export interface EnvProviders {
  OPENAI_TTS_URL?: string | undefined;
  OPENAI_TTS_KEY?: string | undefined;
  OPENAI_TTS_MODEL?: string | undefined;
  ELEVENLABS_URL?: string | undefined;
  ELEVENLABS_KEY?: string | undefined;
}

/** The environment's providers, as the engines took them before the console existed. */
export function envRemote(env: EnvProviders): RemoteOptions {
  return {
    ...(env.OPENAI_TTS_URL && env.OPENAI_TTS_KEY
      ? {
          openai: {
            url: env.OPENAI_TTS_URL,
            key: env.OPENAI_TTS_KEY,
            ...(env.OPENAI_TTS_MODEL ? { model: env.OPENAI_TTS_MODEL } : {}),
          },
        }
      : {}),
    ...(env.ELEVENLABS_URL && env.ELEVENLABS_KEY ? { elevenlabs: { url: env.ELEVENLABS_URL, key: env.ELEVENLABS_KEY } } : {}),
  };
}

/** The last four characters of a key, the only part ever shown again. */
export function keyHint(key: string): string {
  return key.length <= 8 ? '…' : `…${key.slice(-4)}`;
}

export class ProvidersService {
  private readonly db: Kysely<Database>;
  private readonly secret: string;
  private readonly env: RemoteOptions;

  constructor(options: { db: Kysely<Database>; secret: string; env: EnvProviders }) {
    this.db = options.db;
    this.secret = options.secret;
    this.env = envRemote(options.env);
  }

  /** Which kinds the environment configures (they win over the console's). */
  envKinds(): ProviderKind[] {
    return PROVIDER_KINDS.filter((k) => this.env[k] !== undefined);
  }

  async list(): Promise<ProviderView[]> {
    const rows = await this.db.selectFrom('remote_providers').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map((r) => this.view(r));
  }

  async get(id: string, db: Kysely<Database> = this.db): Promise<ProviderView> {
    return this.view(await this.row(id, db));
  }

  async create(input: ProviderInput, db: Kysely<Database> = this.db): Promise<ProviderView> {
    const at = nowIso();
    const row: RemoteProvidersTable = {
      id: newId('provider'),
      kind: input.kind,
      name: input.name,
      url: input.url,
      model: input.model ?? null,
      key_sealed: seal(this.secret, SEAL_PURPOSE, input.key),
      key_hint: keyHint(input.key),
      enabled: 0,
      last_test_at: null,
      last_test_ok: null,
      last_test_message: null,
      created_at: at,
      updated_at: at,
    };
    await db.insertInto('remote_providers').values(row).execute();
    return this.view(row);
  }

  /** Changes what is given; a key given replaces the stored one (which is never shown, so never edited in place). */
  async update(
    id: string,
    patch: { name?: string | undefined; url?: string | undefined; model?: string | null | undefined; key?: string | undefined },
    db: Kysely<Database> = this.db,
  ): Promise<{ before: ProviderView; after: ProviderView }> {
    const before = await this.row(id, db);
    const set: Partial<RemoteProvidersTable> = { updated_at: nowIso() };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.url !== undefined) set.url = patch.url;
    if (patch.model !== undefined) set.model = patch.model;
    if (patch.key !== undefined) {
      set.key_sealed = seal(this.secret, SEAL_PURPOSE, patch.key);
      set.key_hint = keyHint(patch.key);
    }
    await db.updateTable('remote_providers').set(set).where('id', '=', id).execute();
    return { before: this.view(before), after: await this.get(id, db) };
  }

  /** Enables (turning the other of its kind off) or disables one; answers the rows changed, before and after. */
  async setEnabled(
    id: string,
    enabled: boolean,
    db: Kysely<Database> = this.db,
  ): Promise<{ before: ProviderView; after: ProviderView; disabled: string[] }> {
    const before = await this.row(id, db);
    const at = nowIso();
    let disabled: string[] = [];
    if (enabled) {
      const others = await db
        .selectFrom('remote_providers')
        .select('id')
        .where('kind', '=', before.kind)
        .where('enabled', '=', 1)
        .where('id', '!=', id)
        .execute();
      disabled = others.map((o) => o.id);
      if (disabled.length)
        await db.updateTable('remote_providers').set({ enabled: 0, updated_at: at }).where('id', 'in', disabled).execute();
    }
    await db
      .updateTable('remote_providers')
      .set({ enabled: enabled ? 1 : 0, updated_at: at })
      .where('id', '=', id)
      .execute();
    return { before: this.view(before), after: await this.get(id, db), disabled };
  }

  async remove(id: string, db: Kysely<Database> = this.db): Promise<ProviderView> {
    const before = await this.row(id, db);
    await db.deleteFrom('remote_providers').where('id', '=', id).execute();
    return this.view(before);
  }

  /** One call to the provider with its stored key; the result is kept on the row and answered. */
  async test(id: string, signal?: AbortSignal): Promise<{ before: ProviderView; after: ProviderView }> {
    const row = await this.row(id);
    let ok = true;
    let message: string | null = null;
    try {
      const { voices } = await testRemoteProvider(row.kind as ProviderKind, this.configOf(row), signal);
      message = storedVoices(voices);
    } catch (e) {
      ok = false;
      message = isSpeechError(e) ? storedFailure(e.code, e.params) : storedDetail(e instanceof Error ? e.message : String(e));
    }
    await this.db
      .updateTable('remote_providers')
      .set({ last_test_at: nowIso(), last_test_ok: ok ? 1 : 0, last_test_message: message })
      .where('id', '=', id)
      .execute();
    return { before: this.view(row), after: await this.get(id) };
  }

  /**
   * The providers the engines use now: per kind, the environment's where it is set, else the enabled row's.
   * `fingerprint` changes whenever any of it does (a key included), so a process can tell when to switch.
   */
  async effective(): Promise<{ remote: RemoteOptions; fingerprint: string }> {
    const rows = await this.db.selectFrom('remote_providers').selectAll().where('enabled', '=', 1).orderBy('id').execute();
    const remote: RemoteOptions = { ...this.env };
    const parts: string[] = [];
    for (const kind of PROVIDER_KINDS) {
      if (this.env[kind]) {
        parts.push(`${kind}:env`);
        continue;
      }
      const row = rows.find((r) => r.kind === kind);
      if (!row) continue;
      parts.push(`${kind}:${row.id}:${row.updated_at}:${row.key_sealed}`);
      try {
        if (kind === 'openai') remote.openai = this.configOf(row);
        else remote.elevenlabs = this.configOf(row);
      } catch {
        // A key sealed under another secret cannot be opened: that provider stays off, the rest work.
      }
    }
    return { remote, fingerprint: parts.join('|') };
  }

  private configOf(row: RemoteProvidersTable): { url: string; key: string; model?: string } {
    return { url: row.url, key: unseal(this.secret, SEAL_PURPOSE, row.key_sealed), ...(row.model ? { model: row.model } : {}) };
  }

  private async row(id: string, db: Kysely<Database> = this.db): Promise<RemoteProvidersTable> {
    const row = await db.selectFrom('remote_providers').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  private view(r: RemoteProvidersTable): ProviderView {
    const kind = r.kind as ProviderKind;
    return {
      id: r.id,
      kind,
      name: r.name,
      url: r.url,
      model: r.model,
      key_hint: r.key_hint,
      enabled: r.enabled === 1,
      overridden_by_env: this.env[kind] !== undefined,
      last_test: r.last_test_at === null ? null : { at: r.last_test_at, ok: r.last_test_ok === 1, message: r.last_test_message },
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }
}

/**
 * Keeps a process's engines on the providers in force: reads them every `intervalMs` (and at `sync()`, which the
 * process that made a change calls at once) and hands a changed set to `apply`. Every process runs one, so a provider
 * enabled in the console speaks on all of them within about `intervalMs`, with no restart.
 */
export class ProviderSync {
  private last: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly options: {
      providers: ProvidersService;
      apply: (remote: RemoteOptions) => Promise<unknown>;
      intervalMs?: number;
      onError?: (err: unknown) => void;
    },
  ) {}

  /** Reads the providers and applies a change; calls run one after another, so a read after a change sees it. */
  sync(): Promise<void> {
    const next = (this.running ?? Promise.resolve())
      .catch(() => {})
      .then(async () => {
        const { remote, fingerprint } = await this.options.providers.effective();
        if (fingerprint === this.last) return;
        await this.options.apply(remote);
        this.last = fingerprint;
      });
    this.running = next;
    return next;
  }

  start(): this {
    // The environment's providers were given to the engines at start: only a difference from them is applied.
    this.timer ??= setInterval(
      () => void this.sync().catch((err: unknown) => this.options.onError?.(err)),
      this.options.intervalMs ?? 2000,
    ).unref();
    void this.sync().catch((err: unknown) => this.options.onError?.(err));
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
