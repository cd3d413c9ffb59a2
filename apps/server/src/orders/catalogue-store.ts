import type { Kysely, Selectable, Transaction } from 'kysely';
import { PLANS, type Product } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import type { CatalogProductsTable, Database } from '../platform/db/schema.js';
import { buildCatalogue, catalogueProblems, type Catalogue, type CatalogueSource, type ProductEntry } from './products.js';

type Row = Selectable<CatalogProductsTable>;
type Texts = ProductEntry['name'];

/** What an operator may change on a product; anything left out stays. */
export interface ProductChange {
  prices?: Partial<ProductEntry['prices']>;
  credits?: number;
  period_days?: number;
  privileges?: Partial<Product['privileges']>;
  name?: Partial<Texts>;
  description?: Partial<Texts>;
  hidden?: boolean;
}

/** A product as stored, with who changed it last. */
export interface StoredProduct extends ProductEntry {
  updatedAt: string;
  updatedBy: string | null;
}

/** Writes the audit entry of an edit in the edit's own transaction (the composition passes the audit trail's). */
export type EditAudit = (trx: Transaction<Database>, before: StoredProduct, after: StoredProduct) => Promise<void>;
/** Writes the audit entry of a product added or retired, in that change's transaction. */
export type CreateAudit = (trx: Transaction<Database>, product: StoredProduct) => Promise<void>;

function entryOf(row: Row): StoredProduct {
  const kind = row.kind === 'plan' ? 'plan' : 'credits';
  return {
    id: row.id,
    kind,
    plan: (PLANS as readonly string[]).includes(row.plan ?? '') ? (row.plan as ProductEntry['plan']) : null,
    vipLevel: row.vip_level,
    rank: Number(row.rank),
    credits: Number(row.credits),
    periodDays: row.period_days === null ? null : Number(row.period_days),
    prices: { CNY: Number(row.price_cny), USD: Number(row.price_usd) },
    privileges: JSON.parse(row.privileges) as Product['privileges'],
    name: JSON.parse(row.name) as Texts,
    description: JSON.parse(row.description) as Texts,
    purchasable: !(kind === 'plan' && row.plan === 'free'),
    hidden: Number(row.hidden) === 1,
    retired: row.retired_at !== null,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
  };
}

function rowOf(e: ProductEntry, position: number, at: string, by: string | null): Row {
  return {
    id: e.id,
    kind: e.kind,
    plan: e.plan,
    vip_level: e.vipLevel,
    rank: e.rank,
    credits: e.credits,
    period_days: e.periodDays,
    price_cny: e.prices.CNY,
    price_usd: e.prices.USD,
    privileges: JSON.stringify(e.privileges),
    name: JSON.stringify(e.name),
    description: JSON.stringify(e.description),
    hidden: e.hidden ? 1 : 0,
    retired_at: e.retired ? at : null,
    position,
    updated_at: at,
    updated_by: by,
  };
}

export interface CatalogueStoreOptions {
  db: Kysely<Database>;
  /** How long a process trusts its copy before it compares the stored version again (0: on every use). */
  refreshMs: number;
  now?: () => number;
}

/** The longest text a plan may allow: what the speech engines accept (set at their start). */
export interface TextLimit {
  maxTextLength: number;
}

/**
 * The catalogue in the database (`catalog_products`, `catalog_state`), which `products.json` only seeds. Each process
 * keeps a copy and, at most once per `refreshMs`, compares the stored version (one indexed row) with its copy's; an
 * edit bumps the version in its own transaction, so every process (API and workers) serves it within `refreshMs`
 * of the commit, without a restart. Orders keep the product as bought (their own columns), so an edit never
 * changes what an order costs or grants.
 */
export class CatalogueStore implements CatalogueSource {
  private readonly db: Kysely<Database>;
  private readonly refreshMs: number;
  private readonly now: () => number;
  private copy: { catalogue: Catalogue; version: number; entries: StoredProduct[]; basicPlan: string } | null = null;
  private checkedAt = -Infinity;
  private checking: Promise<Catalogue> | null = null;
  /** Set by the composition once the engines started (their accepted length); edits may not allow more. */
  engineLimit: TextLimit | null = null;

  constructor(options: CatalogueStoreOptions) {
    this.db = options.db;
    this.refreshMs = options.refreshMs;
    this.now = options.now ?? Date.now;
  }

  /**
   * Writes the seed's products that the table does not have yet (an operator's edits are never overwritten; a
   * product added to the file later is added), and the state row on first start; then loads the copy.
   */
  async open(seed: { basicPlan: string; entries: readonly ProductEntry[] }): Promise<this> {
    const at = new Date(this.now()).toISOString();
    await this.db.transaction().execute(async (trx) => {
      const rows = seed.entries.map((e, i) => rowOf(e, i, at, null));
      if (rows.length)
        await trx
          .insertInto('catalog_products')
          .values(rows)
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
      await trx
        .insertInto('catalog_state')
        .values({ id: 1, version: 1, basic_plan: seed.basicPlan, updated_at: at })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    });
    await this.reload();
    return this;
  }

  latest(): Catalogue {
    if (!this.copy) throw new Error('the catalogue was not opened');
    return this.copy.catalogue;
  }

  async current(): Promise<Catalogue> {
    if (this.copy && this.now() - this.checkedAt < this.refreshMs) return this.copy.catalogue;
    // Requests arriving together share one look at the version.
    this.checking ??= this.check().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  /** Every product, hidden ones too, with the version they are at (for the operator's console). */
  async all(): Promise<{ items: StoredProduct[]; version: number; basicPlan: string }> {
    await this.reload();
    const copy = this.copy!;
    return { items: copy.entries.filter((e) => !e.retired), version: copy.version, basicPlan: copy.basicPlan };
  }

  /**
   * Changes one product, checked as the seed file is checked (a sold plan needs its period and prices above zero, …),
   * bumps the version and writes the audit entry, all in one transaction; then this process reloads at once.
   */
  async update(id: string, change: ProductChange, operatorId: string, audit: EditAudit): Promise<StoredProduct> {
    const after = await this.db.transaction().execute(async (trx) => {
      const { state, rows, entries } = await this.edit(trx);
      const before = entries.find((e) => e.id === id && !e.retired);
      if (!before) throw new AppError('NOT_FOUND');
      if (before.kind === 'credits' && (change.period_days !== undefined || change.privileges !== undefined))
        throw new AppError('VALIDATION_FAILED', { field: 'period_days', rule: 'a credit pack has no period or privileges' });
      if (before.plan === 'free' && change.period_days !== undefined)
        throw new AppError('VALIDATION_FAILED', { field: 'period_days', rule: 'the free plan has no period' });
      const at = new Date(this.now()).toISOString();
      const next: StoredProduct = {
        ...before,
        prices: { ...before.prices, ...change.prices },
        credits: change.credits ?? before.credits,
        periodDays: change.period_days ?? before.periodDays,
        privileges: { ...before.privileges, ...change.privileges },
        name: { ...before.name, ...change.name },
        description: { ...before.description, ...change.description },
        hidden: change.hidden ?? before.hidden,
        updatedAt: at,
        updatedBy: operatorId,
      };
      const most = this.engineLimit?.maxTextLength;
      if (most !== undefined && next.privileges.max_text_length > most)
        throw new AppError('VALIDATION_FAILED', {
          field: 'privileges.max_text_length',
          rule: `at most ${most}, the longest text the speech engines were started with`,
        });
      if (next.plan === state.basic_plan && next.hidden)
        throw new AppError('VALIDATION_FAILED', { field: 'hidden', rule: 'the basic plan prices refunds and stays on sale' });
      if (next.plan === 'free' && next.hidden)
        throw new AppError('VALIDATION_FAILED', {
          field: 'hidden',
          rule: 'the free plan is what every account without a plan has',
        });
      const problems = catalogueProblems(
        entries.filter((e) => !e.retired).map((e) => (e.id === id ? next : e)),
        state.basic_plan,
      );
      if (problems.length) throw new AppError('VALIDATION_FAILED', { field: id, rule: problems.join('; ') });
      const position = rows.find((r) => r.id === id)!.position;
      const { id: _id, ...values } = rowOf(next, Number(position), at, operatorId);
      await trx.updateTable('catalog_products').set(values).where('id', '=', id).execute();
      await audit(trx, before, next);
      return next;
    });
    await this.reload();
    return after;
  }

  /** The version row first (bumped): two edits queue here, and each checks the catalogue the one before it left. */
  private async edit(trx: Transaction<Database>) {
    const state = await trx
      .updateTable('catalog_state')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: new Date(this.now()).toISOString() }))
      .where('id', '=', 1)
      .returning(['version', 'basic_plan'])
      .executeTakeFirstOrThrow();
    const rows = await trx.selectFrom('catalog_products').selectAll().orderBy('position').orderBy('id').execute();
    return { state, rows, entries: rows.map(entryOf) };
  }

  /**
   * Adds a product or a plan (after every other, shown unless `hidden`), checked as an edit is; its id is never one
   * used before, retired ones included (orders name it). Audited in the same transaction.
   */
  async create(entry: ProductEntry, operatorId: string, audit: CreateAudit): Promise<StoredProduct> {
    const made = await this.db.transaction().execute(async (trx) => {
      const { state, rows, entries } = await this.edit(trx);
      if (entries.some((e) => e.id === entry.id))
        throw new AppError('VALIDATION_FAILED', { field: 'id', rule: 'already used by a product (retired ones too)' });
      const at = new Date(this.now()).toISOString();
      const next: StoredProduct = { ...entry, retired: false, updatedAt: at, updatedBy: operatorId };
      this.checkLimit(next);
      const problems = catalogueProblems([...entries.filter((e) => !e.retired), next], state.basic_plan);
      if (problems.length) throw new AppError('VALIDATION_FAILED', { field: entry.id, rule: problems.join('; ') });
      const position = rows.reduce((most, r) => Math.max(most, Number(r.position)), -1) + 1;
      await trx
        .insertInto('catalog_products')
        .values(rowOf(next, position, at, operatorId))
        .execute();
      await audit(trx, next);
      return next;
    });
    await this.reload();
    return made;
  }

  /**
   * Retires a product or a plan: no longer listed or sold (the console lists it no more); orders keep it as bought
   * and holders of a retired plan keep its privileges. The free and the basic plan, and the last plan of a period,
   * stay. Audited in the same transaction.
   */
  async retire(id: string, operatorId: string, audit: CreateAudit): Promise<StoredProduct> {
    const retired = await this.db.transaction().execute(async (trx) => {
      const { state, entries } = await this.edit(trx);
      const before = entries.find((e) => e.id === id && !e.retired);
      if (!before) throw new AppError('NOT_FOUND');
      const basic = entries.find((e) => !e.retired && e.kind === 'plan' && e.plan === state.basic_plan);
      if (before.plan === 'free' || before.id === basic?.id)
        throw new AppError('VALIDATION_FAILED', { field: 'id', rule: 'the free and the basic plan cannot be retired' });
      const problems = catalogueProblems(
        entries.filter((e) => !e.retired && e.id !== id),
        state.basic_plan,
      );
      if (problems.length) throw new AppError('VALIDATION_FAILED', { field: id, rule: problems.join('; ') });
      const at = new Date(this.now()).toISOString();
      await trx
        .updateTable('catalog_products')
        .set({ retired_at: at, updated_at: at, updated_by: operatorId })
        .where('id', '=', id)
        .execute();
      await audit(trx, before);
      return before;
    });
    await this.reload();
    return retired;
  }

  private checkLimit(p: ProductEntry): void {
    const most = this.engineLimit?.maxTextLength;
    if (most !== undefined && p.privileges.max_text_length > most)
      throw new AppError('VALIDATION_FAILED', {
        field: 'privileges.max_text_length',
        rule: `at most ${most}, the longest text the speech engines were started with`,
      });
  }

  private async check(): Promise<Catalogue> {
    const state = await this.db.selectFrom('catalog_state').select('version').where('id', '=', 1).executeTakeFirst();
    this.checkedAt = this.now();
    if (!this.copy || !state || Number(state.version) !== this.copy.version) await this.reload();
    return this.copy!.catalogue;
  }

  /** The version is read before the rows: an edit committed in between is read again at the next check. */
  private async reload(): Promise<void> {
    const state = await this.db.selectFrom('catalog_state').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    const rows = await this.db.selectFrom('catalog_products').selectAll().orderBy('position').orderBy('id').execute();
    const entries = rows.map(entryOf);
    this.copy = {
      catalogue: buildCatalogue(entries, state.basic_plan),
      version: Number(state.version),
      entries,
      basicPlan: state.basic_plan,
    };
    this.checkedAt = this.now();
  }
}
