import type { Kysely } from 'kysely';
import type { z } from 'zod';
import {
  LIMITS,
  type AddDictionaryResponse,
  type DictionaryMetadata,
  type DictionaryVersions,
  type DictionaryWithRules,
  type RulesChangedResponse,
} from '@polyvox/contracts';
import type { LexiconRule } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import { lockAccount } from '../platform/db/locks.js';
import type { Database, PronunciationDictionariesTable } from '../platform/db/schema.js';
import { parsePls, writePls, type StoredRule } from './pls.js';
import { PronunciationRepository } from './repository.js';

/** Who acts: an account, or the operator (`null`), whose dictionaries every account reads. */
export type Owner = string | null;

export interface Locator {
  pronunciation_dictionary_id: string;
  version_id?: string | null | undefined;
}

const unix = (iso: string | null): number | null => (iso === null ? null : Math.floor(Date.parse(iso) / 1000));

/** The dictionaries' rules and versions; ElevenLabs' shapes out. Another account's dictionary is NOT_FOUND. */
export class PronunciationService {
  private readonly repo: PronunciationRepository;

  constructor(options: { db: Kysely<Database> }) {
    this.repo = new PronunciationRepository(options.db);
  }

  private metadata(row: PronunciationDictionariesTable, owner: Owner): z.infer<typeof DictionaryMetadata> {
    const mine = row.account_id === owner;
    return {
      id: row.id,
      latest_version_id: row.latest_version_id,
      latest_version_rules_num: Number(row.latest_rules_num),
      name: row.name,
      permission_on_resource: mine ? 'admin' : 'viewer',
      created_by: row.account_id ?? 'operator',
      creation_time_unix: unix(row.created_at)!,
      archived_time_unix: unix(row.archived_at),
      description: row.description,
      default: Number(row.is_default) === 1,
      shared: row.account_id === null,
    };
  }

  private async found(owner: Owner, id: string): Promise<PronunciationDictionariesTable> {
    const row = await this.repo.visible(owner, id);
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  /** A dictionary the caller may change: its own (a shared one is read-only to accounts). */
  private async writable(owner: Owner, id: string): Promise<PronunciationDictionariesTable> {
    const row = await this.found(owner, id);
    if (row.account_id !== owner) throw new AppError('FORBIDDEN');
    return row;
  }

  private async rulesOf(dictionaryId: string, versionId: string): Promise<StoredRule[]> {
    const version = await this.repo.version(dictionaryId, versionId);
    if (!version) throw new AppError('NOT_FOUND');
    return JSON.parse(version.rules) as StoredRule[];
  }

  async createFromRules(
    owner: Owner,
    input: { name: string; description?: string | null | undefined; rules: StoredRule[]; default?: boolean | undefined },
  ): Promise<z.infer<typeof AddDictionaryResponse>> {
    if (input.rules.length > LIMITS.pronunciationMaxRules)
      throw new AppError('VALIDATION_FAILED', { field: 'rules', rule: `at most ${LIMITS.pronunciationMaxRules} rules` });
    const now = nowIso();
    const id = newId('dictionary');
    const versionId = newId('dictionaryVersion');
    const makeDefault = input.default === true && owner !== null;
    const row: PronunciationDictionariesTable = {
      id,
      account_id: owner,
      name: input.name,
      description: input.description ?? null,
      latest_version_id: versionId,
      latest_rules_num: input.rules.length,
      is_default: makeDefault ? 1 : 0,
      created_at: now,
      archived_at: null,
    };
    await this.repo.transaction(async (trx) => {
      if (makeDefault) {
        await lockAccount(trx, owner);
        await this.repo.clearDefault(trx, owner);
      }
      await this.repo.insertDictionary(trx, row);
      await this.repo.insertVersion(trx, {
        id: versionId,
        dictionary_id: id,
        rules: JSON.stringify(input.rules),
        rules_num: input.rules.length,
        created_at: now,
      });
    });
    const meta = this.metadata(row, owner);
    return {
      id,
      name: row.name,
      created_by: meta.created_by,
      creation_time_unix: meta.creation_time_unix,
      version_id: versionId,
      version_rules_num: input.rules.length,
      description: row.description,
      permission_on_resource: 'admin',
      default: makeDefault,
    };
  }

  async createFromFile(
    owner: Owner,
    input: { name: string; description?: string | null | undefined; file: Buffer; default?: boolean | undefined },
  ): Promise<z.infer<typeof AddDictionaryResponse>> {
    return this.createFromRules(owner, { ...input, rules: parsePls(input.file) });
  }

  async list(
    owner: Owner,
    query: {
      cursor?: string | undefined;
      page_size: number;
      sort?: 'creation_time_unix' | 'name' | undefined;
      sort_direction?: string | undefined;
      include_archived?: boolean | undefined;
    },
  ): Promise<{
    pronunciation_dictionaries: z.infer<typeof DictionaryMetadata>[];
    next_cursor: string | null;
    has_more: boolean;
  }> {
    const offset = query.cursor && /^\d{1,9}$/.test(query.cursor) ? Number(query.cursor) : 0;
    const rows = await this.repo.list(owner, {
      includeArchived: query.include_archived === true,
      sort: query.sort ?? 'creation_time_unix',
      descending: (query.sort_direction ?? 'descending').toLowerCase() === 'descending',
      offset,
      limit: query.page_size + 1,
    });
    const more = rows.length > query.page_size;
    return {
      pronunciation_dictionaries: rows.slice(0, query.page_size).map((r) => this.metadata(r, owner)),
      next_cursor: more ? String(offset + query.page_size) : null,
      has_more: more,
    };
  }

  async get(owner: Owner, id: string): Promise<z.infer<typeof DictionaryWithRules>> {
    const row = await this.found(owner, id);
    return { ...this.metadata(row, owner), rules: await this.rulesOf(row.id, row.latest_version_id) };
  }

  /** A new version from the latest one's rules, changed; retried when another change came first. */
  private async change(
    owner: Owner,
    id: string,
    edit: (rules: StoredRule[]) => StoredRule[],
  ): Promise<z.infer<typeof RulesChangedResponse>> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const row = await this.writable(owner, id);
      const rules = edit(await this.rulesOf(row.id, row.latest_version_id));
      if (rules.length > LIMITS.pronunciationMaxRules)
        throw new AppError('VALIDATION_FAILED', { field: 'rules', rule: `at most ${LIMITS.pronunciationMaxRules} rules` });
      const versionId = newId('dictionaryVersion');
      const done = await this.repo
        .transaction(async (trx) => {
          await this.repo.insertVersion(trx, {
            id: versionId,
            dictionary_id: row.id,
            rules: JSON.stringify(rules),
            rules_num: rules.length,
            created_at: nowIso(),
          });
          if (await this.repo.advance(trx, row.id, row.latest_version_id, versionId, rules.length)) return true;
          throw new Retry();
        })
        .catch((e: unknown) => {
          if (e instanceof Retry) return false;
          throw e;
        });
      if (done) return { id: row.id, version_id: versionId, version_rules_num: rules.length };
    }
    throw new AppError('RATE_LIMITED', { seconds: 1 }, { headers: { 'retry-after': '1' } });
  }

  /** Adds rules; a rule for a string the dictionary has already replaces that one (in its place). */
  addRules(owner: Owner, id: string, added: StoredRule[]): Promise<z.infer<typeof RulesChangedResponse>> {
    return this.change(owner, id, (rules) => {
      const out = [...rules];
      for (const rule of added) {
        const at = out.findIndex((r) => r.string_to_replace === rule.string_to_replace);
        if (at >= 0) out[at] = rule;
        else out.push(rule);
      }
      return out;
    });
  }

  /** Replaces all the rules (ElevenLabs' `set-rules`). */
  setRules(owner: Owner, id: string, rules: StoredRule[]): Promise<z.infer<typeof RulesChangedResponse>> {
    return this.change(owner, id, () => rules);
  }

  /** Removes every rule whose string is one of `strings` (exactly, case included). */
  removeRules(owner: Owner, id: string, strings: string[]): Promise<z.infer<typeof RulesChangedResponse>> {
    const gone = new Set(strings);
    return this.change(owner, id, (rules) => rules.filter((r) => !gone.has(r.string_to_replace)));
  }

  async update(
    owner: Owner,
    id: string,
    changes: { name?: string | undefined; archived?: boolean | undefined; default?: boolean | undefined },
  ): Promise<z.infer<typeof DictionaryMetadata>> {
    const row = await this.writable(owner, id);
    await this.repo.transaction(async (trx) => {
      const set: Partial<Pick<PronunciationDictionariesTable, 'name' | 'archived_at' | 'is_default'>> = {};
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.archived !== undefined) set.archived_at = changes.archived ? (row.archived_at ?? nowIso()) : null;
      // An archived dictionary is no one's default.
      if (changes.archived === true || changes.default === false) set.is_default = 0;
      else if (changes.default === true && owner !== null) {
        await lockAccount(trx, owner);
        await this.repo.clearDefault(trx, owner);
        set.is_default = 1;
      }
      if (Object.keys(set).length > 0) await this.repo.update(trx, row.id, set);
    });
    return this.metadata((await this.repo.visible(owner, id))!, owner);
  }

  /** The dictionary's versions, newest first, the latest marked. */
  async versions(owner: Owner, id: string): Promise<z.infer<typeof DictionaryVersions>> {
    const row = await this.found(owner, id);
    const versions = await this.repo.versions(row.id);
    return {
      versions: versions.map((v) => ({
        version_id: v.id,
        version_rules_num: v.rules_num,
        creation_time_unix: unix(v.created_at)!,
        latest: v.id === row.latest_version_id,
      })),
    };
  }

  /** A version of the dictionary as a PLS file. */
  async download(owner: Owner, id: string, versionId: string): Promise<{ name: string; pls: string }> {
    const row = await this.found(owner, id);
    return { name: row.name, pls: writePls(await this.rulesOf(row.id, versionId)) };
  }

  /**
   * The rules a synthesis request applies, in order: its locators' versions (the latest where a locator names
   * none), or, when it names no dictionary at all, the account's default one. A dictionary the account may not
   * read, or a version it does not have, is NOT_FOUND: refused before anything is charged.
   */
  async rulesFor(accountId: string | undefined, locators: readonly Locator[] | undefined): Promise<LexiconRule[]> {
    if (accountId === undefined) return [];
    if (locators === undefined) {
      const fallback = await this.repo.defaultOf(accountId);
      return fallback ? this.rulesOf(fallback.id, fallback.latest_version_id) : [];
    }
    if (locators.length > LIMITS.pronunciationMaxLocators)
      throw new AppError('VALIDATION_FAILED', {
        field: 'pronunciation_dictionary_locators',
        rule: `at most ${LIMITS.pronunciationMaxLocators} dictionaries`,
      });
    const out: LexiconRule[] = [];
    for (const locator of locators) {
      const row = await this.found(accountId, locator.pronunciation_dictionary_id);
      out.push(...(await this.rulesOf(row.id, locator.version_id ?? row.latest_version_id)));
    }
    return out;
  }
}

class Retry extends Error {}
