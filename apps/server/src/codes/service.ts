import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { CodeBatch, Plan } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { CodeBatchesTable, Database } from '../platform/db/schema.js';
import { requesterKey, type RateLimiter } from '../platform/rate-limit.js';
import type { CreditsService } from '../credits/service.js';
import type { CatalogueSource } from '../orders/products.js';
import { CodeCipher, codeHash, codeHint, newCode } from './code-text.js';

type BatchRow = Selectable<CodeBatchesTable>;

/** What a redemption gave. */
export interface Redemption {
  credits: number;
  plan: Plan | null;
  balance: number;
}

/** The part of the orders service that puts an account on a plan, as a purchase does. */
export interface PlanGranter {
  grantPlan(trx: Transaction<Database>, accountId: string, vipLevel: string, periodDays: number, now: Date): Promise<void>;
}

/** Writes an operator action's audit entry, in the action's transaction when it has one. */
export type CodesAudit = (
  trx: Transaction<Database> | null,
  action: string,
  target: { type: string; id: string },
  change: { before?: unknown; after?: unknown },
) => Promise<void>;

export interface NewBatch {
  name: string;
  kind: 'credits' | 'plan';
  credits?: number | undefined;
  product?: string | undefined;
  count: number;
  usesPerCode: number;
  prefix: string;
  expiresAt: string | null;
}

export interface CodesOptions {
  db: Kysely<Database>;
  credits: CreditsService;
  plans: PlanGranter;
  products: CatalogueSource;
  limiter: RateLimiter;
  /** The server secret: the key that keeps the codes for the CSV export. */
  secret: string;
  limits: { perAccountHour: number; perIpHour: number };
  /** The clock of expiry (tests move it). */
  now?: () => Date;
}

const INSERT_CHUNK = 500;

function batchState(row: BatchRow, used: number, now: Date): CodeBatch['state'] {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && Date.parse(row.expires_at) <= now.getTime()) return 'expired';
  if (used >= Number(row.count) * Number(row.uses_per_code)) return 'used_up';
  return 'active';
}

/** A CSV field, quoted, and never read as a formula by a spreadsheet. */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/**
 * Redemption codes: batches made by operators, redeemed by users. A use is one conditional UPDATE (`uses < max_uses`
 * on a code of a batch neither revoked nor expired) and one row in `code_redemptions` (unique per code and account),
 * with the ledger entry and the plan, in one transaction: under any race a code gives exactly its uses, each
 * account at most once.
 */
export class CodesService {
  private readonly db: Kysely<Database>;
  private readonly credits: CreditsService;
  private readonly plans: PlanGranter;
  private readonly products: CatalogueSource;
  private readonly limiter: RateLimiter;
  private readonly cipher: CodeCipher;
  private readonly limits: { perAccountHour: number; perIpHour: number };
  private readonly now: () => Date;

  constructor(options: CodesOptions) {
    this.db = options.db;
    this.credits = options.credits;
    this.plans = options.plans;
    this.products = options.products;
    this.limiter = options.limiter;
    this.cipher = new CodeCipher(options.secret);
    this.limits = options.limits;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Every attempt counts against the account's and the client address's hourly allowance (429 with retry-after
   * beyond), right or wrong, so guessing 80-bit codes is hopeless; an unknown, used-up, expired or revoked code,
   * or one this account already used, is CODE_NOT_REDEEMABLE, all alike.
   */
  async redeem(accountId: string, typed: string, ip: string): Promise<Redemption> {
    for (const [key, limit] of [
      [`redeem:ip:${requesterKey(ip)}`, this.limits.perIpHour],
      [`redeem:acct:${accountId}`, this.limits.perAccountHour],
    ] as const) {
      const wait = await this.limiter.hit(key, limit, 3600);
      if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
    }
    const hash = codeHash(typed);
    return this.db.transaction().execute(async (trx) => {
      const now = this.now();
      const at = now.toISOString();
      const code = await trx
        .updateTable('redemption_codes')
        .set((eb) => ({ uses: eb('uses', '+', 1) }))
        .where('code_hash', '=', hash)
        .where((eb) => eb('uses', '<', eb.ref('max_uses')))
        .where('batch_id', 'in', (eb) =>
          eb
            .selectFrom('code_batches')
            .select('id')
            .where('revoked_at', 'is', null)
            .where((w) => w.or([w('expires_at', 'is', null), w('expires_at', '>', at)])),
        )
        .returning(['id', 'batch_id'])
        .executeTakeFirst();
      if (!code) throw new AppError('CODE_NOT_REDEEMABLE');
      const batch = await trx.selectFrom('code_batches').selectAll().where('id', '=', code.batch_id).executeTakeFirstOrThrow();
      const credits = Number(batch.credits);
      const plan = batch.kind === 'plan' ? (batch.plan as Plan) : null;
      const used = await trx
        .insertInto('code_redemptions')
        .values({
          id: newId('redemption'),
          code_id: code.id,
          batch_id: batch.id,
          account_id: accountId,
          credits,
          plan,
          created_at: at,
        })
        .onConflict((oc) => oc.columns(['code_id', 'account_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      // This account used this code before: the use taken above rolls back with the transaction.
      if (!used) throw new AppError('CODE_NOT_REDEEMABLE');
      // The ledger entry locks the account row before the plan reads its expiry.
      const balance = await this.credits.redeemed(trx, accountId, credits, batch.id);
      if (plan && batch.vip_level && batch.period_days)
        await this.plans.grantPlan(trx, accountId, batch.vip_level, Number(batch.period_days), now);
      return { credits, plan, balance };
    });
  }

  /**
   * A batch and its codes, in plain text this once (the CSV export decrypts them later). A plan code gives the plan
   * product's credits and period as they are now: the batch keeps them, whatever the catalogue says later.
   */
  async createBatch(input: NewBatch, operatorId: string, audit: CodesAudit): Promise<{ batch: CodeBatch; codes: string[] }> {
    const now = this.now();
    if (input.expiresAt && Date.parse(input.expiresAt) <= now.getTime())
      throw new AppError('VALIDATION_FAILED', { field: 'expires_at', rule: 'must be in the future' });
    let credits = input.credits ?? 0;
    let plan: { product: string; plan: string; vipLevel: string; periodDays: number } | null = null;
    if (input.kind === 'plan') {
      const product = (await this.products.current()).get(input.product ?? '');
      if (!product || product.kind !== 'plan' || !product.purchasable || !product.vipLevel || !product.periodDays)
        throw new AppError('VALIDATION_FAILED', { field: 'product', rule: 'must be a sold plan product' });
      plan = { product: product.id, plan: product.plan!, vipLevel: product.vipLevel, periodDays: product.periodDays };
      credits = input.credits ?? product.credits;
    }
    const row: BatchRow = {
      id: newId('codeBatch'),
      name: input.name,
      kind: input.kind,
      credits,
      product_id: plan?.product ?? null,
      plan: plan?.plan ?? null,
      vip_level: plan?.vipLevel ?? null,
      period_days: plan?.periodDays ?? null,
      count: input.count,
      uses_per_code: input.usesPerCode,
      prefix: input.prefix,
      expires_at: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      revoked_at: null,
      revoked_by: null,
      created_at: now.toISOString(),
      created_by: operatorId,
    };
    const codes = Array.from({ length: input.count }, () => newCode(input.prefix));
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('code_batches').values(row).execute();
      for (let i = 0; i < codes.length; i += INSERT_CHUNK) {
        await trx
          .insertInto('redemption_codes')
          .values(
            codes.slice(i, i + INSERT_CHUNK).map((code, j) => ({
              id: newId('redemptionCode'),
              batch_id: row.id,
              code_hash: codeHash(code),
              code_cipher: this.cipher.seal(code),
              code_hint: codeHint(code),
              uses: 0,
              max_uses: input.usesPerCode,
              position: i + j,
              created_at: row.created_at,
            })),
          )
          .execute();
      }
      await audit(trx, 'codes.create', { type: 'code_batch', id: row.id }, { after: this.view(row, 0, now) });
    });
    return { batch: this.view(row, 0, now), codes };
  }

  async listBatches(query: {
    page: number;
    pageSize: number;
    state?: CodeBatch['state'] | undefined;
    kind?: CodeBatch['kind'] | undefined;
  }): Promise<{ items: CodeBatch[]; total: number }> {
    const now = this.now();
    const at = now.toISOString();
    let q = this.db
      .selectFrom('code_batches as b')
      .selectAll('b')
      .select((eb) =>
        eb
          .selectFrom('redemption_codes as c')
          .select((s) => s.fn.coalesce(s.fn.sum<number>('c.uses'), s.lit(0)).as('n'))
          .whereRef('c.batch_id', '=', 'b.id')
          .as('used'),
      );
    if (query.kind) q = q.where('b.kind', '=', query.kind);
    const total = sql<number>`b.count * b.uses_per_code`;
    const used = sql<number>`(SELECT coalesce(sum(c.uses), 0) FROM redemption_codes c WHERE c.batch_id = b.id)`;
    if (query.state === 'revoked') q = q.where('b.revoked_at', 'is not', null);
    if (query.state === 'expired') q = q.where('b.revoked_at', 'is', null).where('b.expires_at', '<=', at);
    if (query.state === 'used_up' || query.state === 'active') {
      q = q
        .where('b.revoked_at', 'is', null)
        .where((eb) => eb.or([eb('b.expires_at', 'is', null), eb('b.expires_at', '>', at)]))
        .where(query.state === 'used_up' ? sql<boolean>`${used} >= ${total}` : sql<boolean>`${used} < ${total}`);
    }
    const [rows, count] = await Promise.all([
      q
        .orderBy('b.created_at', 'desc')
        .orderBy('b.id', 'desc')
        .offset((query.page - 1) * query.pageSize)
        .limit(query.pageSize)
        .execute(),
      q
        .clearSelect()
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map((r) => this.view(r, Number(r.used ?? 0), now)), total: Number(count.n) };
  }

  async batch(id: string): Promise<CodeBatch> {
    const row = await this.db.selectFrom('code_batches').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return this.view(row, await this.usedOf(this.db, id), this.now());
  }

  /** A batch's codes (masked) with their state and who used each, in the order they were made. */
  async codes(
    batchId: string,
    query: { page: number; pageSize: number; state?: 'unused' | 'partly_used' | 'used_up' | undefined },
  ) {
    await this.batch(batchId);
    let q = this.db.selectFrom('redemption_codes').where('batch_id', '=', batchId);
    if (query.state === 'unused') q = q.where('uses', '=', 0);
    if (query.state === 'partly_used') q = q.where('uses', '>', 0).where((eb) => eb('uses', '<', eb.ref('max_uses')));
    if (query.state === 'used_up') q = q.where((eb) => eb('uses', '>=', eb.ref('max_uses')));
    const [rows, count] = await Promise.all([
      q
        .select(['id', 'code_hint', 'uses', 'max_uses'])
        .orderBy('position')
        .offset((query.page - 1) * query.pageSize)
        .limit(query.pageSize)
        .execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const uses = await this.usesOf(rows.map((r) => r.id));
    return {
      items: rows.map((r) => ({
        id: r.id,
        code: r.code_hint,
        uses: Number(r.uses),
        max_uses: Number(r.max_uses),
        state: codeState(Number(r.uses), Number(r.max_uses)),
        redemptions: uses.get(r.id) ?? [],
      })),
      total: Number(count.n),
    };
  }

  /** Every code of the batch in plain text, with its state and who used it: the CSV an operator hands out. */
  async exportCsv(batchId: string, audit: CodesAudit): Promise<string> {
    const batch = await this.batch(batchId);
    const lines = ['code,state,uses,max_uses,redeemed_by,redeemed_at'];
    let position = -1;
    for (;;) {
      const rows = await this.db
        .selectFrom('redemption_codes')
        .select(['id', 'code_cipher', 'uses', 'max_uses', 'position'])
        .where('batch_id', '=', batchId)
        .where('position', '>', position)
        .orderBy('position')
        .limit(1000)
        .execute();
      if (!rows.length) break;
      position = Number(rows.at(-1)!.position);
      const uses = await this.usesOf(rows.map((r) => r.id));
      for (const r of rows) {
        const by = uses.get(r.id) ?? [];
        lines.push(
          [
            this.cipher.open(r.code_cipher),
            codeState(Number(r.uses), Number(r.max_uses)),
            String(r.uses),
            String(r.max_uses),
            by.map((u) => u.email ?? u.account_id).join(' '),
            by.map((u) => u.at).join(' '),
          ]
            .map(csvField)
            .join(','),
        );
      }
    }
    await audit(null, 'codes.export', { type: 'code_batch', id: batch.id }, { after: { codes: batch.count } });
    return `${lines.join('\r\n')}\r\n`;
  }

  /** Revokes a batch: none of its codes works from now on (uses already made stand). */
  async revoke(batchId: string, operatorId: string, audit: CodesAudit): Promise<CodeBatch> {
    return this.db.transaction().execute(async (trx) => {
      const now = this.now();
      const before = await trx.selectFrom('code_batches').selectAll().where('id', '=', batchId).executeTakeFirst();
      if (!before) throw new AppError('NOT_FOUND');
      // Revoked already: nothing changes, nothing is recorded.
      if (before.revoked_at) return this.view(before, await this.usedOf(trx, batchId), now);
      const after = await trx
        .updateTable('code_batches')
        .set({ revoked_at: now.toISOString(), revoked_by: operatorId })
        .where('id', '=', batchId)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirstOrThrow();
      const used = await this.usedOf(trx, batchId);
      const view = this.view(after, used, now);
      await audit(
        trx,
        'codes.revoke',
        { type: 'code_batch', id: batchId },
        { before: this.view(before, used, now), after: view },
      );
      return view;
    });
  }

  private async usedOf(trx: Kysely<Database> | Transaction<Database>, batchId: string): Promise<number> {
    const row = await trx
      .selectFrom('redemption_codes')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('uses'), eb.lit(0)).as('n'))
      .where('batch_id', '=', batchId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private async usesOf(codeIds: string[]) {
    const map = new Map<string, { account_id: string; email: string | null; at: string }[]>();
    if (!codeIds.length) return map;
    const rows = await this.db
      .selectFrom('code_redemptions as r')
      .leftJoin('accounts as a', 'a.id', 'r.account_id')
      .select(['r.code_id', 'r.account_id', 'a.email', 'r.created_at'])
      .where('r.code_id', 'in', codeIds)
      .orderBy('r.created_at')
      .execute();
    for (const r of rows) {
      const list = map.get(r.code_id) ?? [];
      list.push({ account_id: r.account_id, email: r.email ?? null, at: r.created_at });
      map.set(r.code_id, list);
    }
    return map;
  }

  private view(row: BatchRow, used: number, now: Date): CodeBatch {
    return {
      id: row.id,
      name: row.name,
      kind: row.kind as CodeBatch['kind'],
      credits: Number(row.credits),
      product: row.product_id,
      plan: row.plan as CodeBatch['plan'],
      period_days: row.period_days === null ? null : Number(row.period_days),
      count: Number(row.count),
      uses_per_code: Number(row.uses_per_code),
      used,
      prefix: row.prefix,
      state: batchState(row, used, now),
      expires_at: row.expires_at,
      revoked_at: row.revoked_at,
      created_at: row.created_at,
      created_by: row.created_by,
    };
  }
}

function codeState(uses: number, max: number): 'unused' | 'partly_used' | 'used_up' {
  if (uses === 0) return 'unused';
  return uses >= max ? 'used_up' : 'partly_used';
}
