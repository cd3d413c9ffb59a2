import type { Kysely } from 'kysely';
import { API_KEY_LIMITS, type ApiKey } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId, randomToken } from '../platform/ids.js';
import { sha256 } from '../platform/crypto.js';
import { nowIso } from '../platform/db/database.js';
import { lockAccount } from '../platform/db/locks.js';
import type { ApiKeysTable, Database } from '../platform/db/schema.js';
import type { SensitiveWords } from '../platform/sensitive-words.js';
import { API_KEY_PREFIX, type KeyInfo, type KeyResolver } from '../http/auth.js';

/** Characters of the secret shown after creation, so its owner can recognise it. */
const SHOWN_PREFIX = API_KEY_PREFIX.length + 8;

export interface KeyChanges {
  name?: string;
  limit?: number | null;
  requests_per_minute?: number;
  concurrency?: number;
  voices?: string[] | null;
}

function view(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    name: row.name,
    limit: row.credit_limit === null ? null : Number(row.credit_limit),
    used: Number(row.used),
    prefix: row.prefix,
    requests_per_minute: row.requests_per_minute,
    concurrency: row.concurrency,
    voices: row.voices === null ? null : (JSON.parse(row.voices) as string[]),
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

const voicesColumn = (voices: string[] | null | undefined) => (voices ? JSON.stringify([...new Set(voices)]) : null);

export interface ApiKeysOptions {
  db: Kysely<Database>;
  /** What a key's name may not contain. */
  words: SensitiveWords;
  /** Whether keys need a verified phone number on their account (REAL_NAME=phone); default not. */
  realName?: () => boolean;
}

/**
 * API keys: a 256-bit secret shown once and stored as its SHA-256; every call looks the hash up in the
 * database, so a deleted key stops at once in every server process (no cache to outlive it).
 */
export class ApiKeysService implements KeyResolver {
  private readonly db: Kysely<Database>;
  private readonly words: SensitiveWords;
  private readonly realName: () => boolean;

  constructor(options: ApiKeysOptions) {
    this.db = options.db;
    this.words = options.words;
    this.realName = options.realName ?? (() => false);
  }

  /** A key's name is shown in the account's usage records and to staff: it names nothing it is not. */
  private checkName(name: string): void {
    if (this.words.find(name)) throw new AppError('SENSITIVE_WORDS');
  }

  async list(accountId: string): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(view);
  }

  async create(accountId: string, input: KeyChanges & { name: string }): Promise<ApiKey & { key: string }> {
    this.checkName(input.name);
    const key = API_KEY_PREFIX + randomToken(32);
    const row: ApiKeysTable = {
      id: newId('apiKey'),
      account_id: accountId,
      name: input.name,
      secret_hash: sha256(key),
      prefix: key.slice(0, SHOWN_PREFIX),
      credit_limit: input.limit ?? null,
      used: 0,
      requests_per_minute: input.requests_per_minute ?? API_KEY_LIMITS.defaultRequestsPerMinute,
      concurrency: input.concurrency ?? API_KEY_LIMITS.defaultConcurrency,
      voices: voicesColumn(input.voices),
      created_at: nowIso(),
      last_used_at: null,
      deleted_at: null,
    };
    // Counted with the account row locked, in the transaction that inserts: parallel requests queue on the lock.
    await this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId);
      const count = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= API_KEY_LIMITS.maxKeys) {
        throw new AppError('VALIDATION_FAILED', { field: 'name', rule: `at most ${API_KEY_LIMITS.maxKeys} keys` });
      }
      await trx.insertInto('api_keys').values(row).execute();
    });
    return { ...view(row), key };
  }

  /** Another account's key, or a deleted one, is NOT_FOUND exactly like a missing one. */
  async update(accountId: string, id: string, changes: KeyChanges): Promise<ApiKey> {
    const set: Partial<ApiKeysTable> = {};
    if (changes.name !== undefined) {
      this.checkName(changes.name);
      set.name = changes.name;
    }
    if (changes.limit !== undefined) set.credit_limit = changes.limit;
    if (changes.requests_per_minute !== undefined) set.requests_per_minute = changes.requests_per_minute;
    if (changes.concurrency !== undefined) set.concurrency = changes.concurrency;
    if (changes.voices !== undefined) set.voices = voicesColumn(changes.voices);
    const query = this.db
      .updateTable('api_keys')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null);
    const row =
      Object.keys(set).length > 0
        ? await query.set(set).returningAll().executeTakeFirst()
        : await this.db
            .selectFrom('api_keys')
            .selectAll()
            .where('id', '=', id)
            .where('account_id', '=', accountId)
            .where('deleted_at', 'is', null)
            .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return view(row);
  }

  /** The row stays (records name their key) without its secret's hash: nothing can match it again. */
  async remove(accountId: string, id: string): Promise<void> {
    const row = await this.db
      .updateTable('api_keys')
      .set({ deleted_at: nowIso(), secret_hash: `deleted:${id}` })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
  }

  /** The key a secret belongs to, marked as used now; null for an unknown or deleted key. */
  async resolve(secret: string): Promise<KeyInfo | null> {
    if (!secret.startsWith(API_KEY_PREFIX) || secret.length > 200) return null;
    const row = await this.db
      .updateTable('api_keys')
      .set({ last_used_at: nowIso() })
      .where('secret_hash', '=', sha256(secret))
      .where('deleted_at', 'is', null)
      .returning((eb) => [
        'id',
        'account_id',
        'requests_per_minute',
        'concurrency',
        'voices',
        eb.selectFrom('accounts').select('status').whereRef('accounts.id', '=', 'api_keys.account_id').as('account_status'),
        eb.selectFrom('accounts').select('mobile').whereRef('accounts.id', '=', 'api_keys.account_id').as('account_mobile'),
      ])
      .executeTakeFirst();
    if (!row) return null;
    // A disabled account's keys are refused, saying why (in the same statement: no cache outlives the disable).
    if (row.account_status !== 'active') throw new AppError('ACCOUNT_DISABLED');
    // Where the operator requires real-name users, a key works only for an account with a verified number.
    if (this.realName() && !row.account_mobile) throw new AppError('REAL_NAME_REQUIRED');
    return {
      id: row.id,
      accountId: row.account_id,
      requestsPerMinute: row.requests_per_minute,
      concurrency: row.concurrency,
      voices: row.voices === null ? null : (JSON.parse(row.voices) as string[]),
    };
  }

  /** Whether `id` is one of the account's keys, deleted ones included (records keep naming them). */
  async owns(accountId: string, id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
