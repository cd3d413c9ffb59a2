import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';
import { newId } from '../platform/ids.js';
import { AppError } from '../platform/errors.js';
import { normalizeForMatch, wordListOf, type SensitiveMatch, type SensitiveWords } from '../platform/sensitive-words.js';
import { ProviderUnavailable, type ModerationProvider } from './providers.js';

/** `design`: cloning and designing voices (their prompts, transcripts, preview texts); `synthesis`: everything else. */
export type ModerationPurpose = 'synthesis' | 'design';
export type FailMode = 'open' | 'closed';

/** Where a text to review comes from: kept with a refusal for the operator. */
export interface ReviewContext {
  accountId?: string | null | undefined;
  /** The route family (`tts`, `openai`, `elevenlabs`, `jobs`, `realtime`, `design` …). */
  route: string;
  purpose: ModerationPurpose;
}

/** What synthesis asks before it plans, holds or speaks anything. */
export interface ContentReview {
  /** Resolves when the texts may be spoken; throws `CONTENT_REFUSED` (and keeps the hit) when one may not. */
  review(texts: readonly (string | undefined)[], context: ReviewContext): Promise<void>;
}

export interface ModerationSettings {
  /** Days a refused text is kept for the operator; the sweeper deletes older ones. */
  keepDays: number;
  /** What a provider that does not answer in time means, per purpose. */
  onTimeout: Record<ModerationPurpose, FailMode>;
}

export interface ModerationOptions {
  db: Kysely<Database>;
  /** The built-in lists (SENSITIVE_WORDS_FILES), their words for every text (not those for names only). */
  words: SensitiveWords;
  provider?: ModerationProvider | null;
  /** How long the provider has to answer (ms). */
  timeoutMs?: number;
  settings: () => ModerationSettings;
  /** How long the operator's list is read from a copy before it is read again (ms): a change elsewhere waits at most this. */
  listTtlMs?: number;
  /** Told of a provider that did not answer (and of what its fail mode decided). */
  onProviderError?: (err: unknown, decision: FailMode, context: ReviewContext) => void;
  now?: () => number;
}

/** The category of a refusal made because the provider did not answer while its purpose fails closed. */
export const PROVIDER_UNAVAILABLE = 'provider_unavailable';

/** The longest text kept with a hit (characters); the rest is cut. */
const KEPT_TEXT = 20_000;

export interface ModerationTerm {
  id: string;
  term: string;
  category: string;
  created_at: string;
  created_by: string | null;
}

/**
 * One moderation step for every text that reaches an engine: the built-in lists, the operator's own list (in the
 * database), then the external provider where one is configured. A refusal keeps the hit (account, route, source,
 * category, text) and throws `CONTENT_REFUSED`, which names no list.
 */
export class ModerationService implements ContentReview {
  private readonly o: ModerationOptions;
  private readonly now: () => number;
  private list: { words: SensitiveWords; readAt: number } | null = null;
  private reading: Promise<SensitiveWords> | null = null;

  constructor(options: ModerationOptions) {
    this.o = options;
    this.now = options.now ?? Date.now;
  }

  get providerName(): string | null {
    return this.o.provider?.name ?? null;
  }

  /** The operator's list, read again once its copy is older than `listTtlMs` (the copy answers meanwhile). */
  private async operatorWords(): Promise<SensitiveWords> {
    const ttl = this.o.listTtlMs ?? 2000;
    if (this.list && this.now() - this.list.readAt < ttl) return this.list.words;
    this.reading ??= (async () => {
      try {
        const rows = await this.o.db.selectFrom('moderation_terms').select(['term', 'category']).execute();
        const words = wordListOf(rows);
        this.list = { words, readAt: this.now() };
        return words;
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /** Forgets the copy of the operator's list (this process changed it). */
  invalidate(): void {
    this.list = null;
  }

  /** The first local match in `text`: the built-in lists, then the operator's. */
  async match(text: string): Promise<(SensitiveMatch & { source: 'words' | 'operator' }) | null> {
    const builtIn = this.o.words.find(text, 'all');
    if (builtIn) return { ...builtIn, source: 'words' };
    const own = (await this.operatorWords()).find(text, 'all');
    return own ? { ...own, source: 'operator' } : null;
  }

  async review(texts: readonly (string | undefined)[], context: ReviewContext): Promise<void> {
    // Each distinct text once (the plan's sentences are often the written text again, spaced otherwise).
    const parts = [...new Set(texts.map((t) => t?.replace(/\s+/gu, ' ').trim()).filter((t): t is string => !!t))];
    if (parts.length === 0) return;
    const text = parts.join('\n');
    const local = await this.match(text);
    if (local) return this.refuse(text, context, local.source, local.category);
    const provider = this.o.provider;
    if (!provider) return;
    let verdict;
    try {
      verdict = await provider.check(text, AbortSignal.timeout(this.o.timeoutMs ?? 2000));
    } catch (err) {
      const decision = this.o.settings().onTimeout[context.purpose];
      const failure = err instanceof ProviderUnavailable ? err : new ProviderUnavailable(String(err), { cause: err });
      this.o.onProviderError?.(failure, decision, context);
      if (decision === 'open') return;
      // Refused because nobody could say: kept like any refusal, so the operator sees what the outage cost.
      return this.refuse(text, context, provider.name, PROVIDER_UNAVAILABLE, failure);
    }
    if (verdict.flagged) return this.refuse(text, context, provider.name, verdict.category ?? 'flagged');
  }

  private async refuse(text: string, context: ReviewContext, source: string, category: string, cause?: Error): Promise<never> {
    await this.o.db
      .insertInto('moderation_hits')
      .values({
        id: newId('moderationHit'),
        account_id: context.accountId ?? null,
        route: context.route,
        purpose: context.purpose,
        source,
        category,
        text: text.slice(0, KEPT_TEXT),
        created_at: new Date(this.now()).toISOString(),
      })
      .execute();
    throw new AppError('CONTENT_REFUSED', {}, cause ? { cause } : {});
  }

  listTerms(): Promise<ModerationTerm[]> {
    return this.o.db.selectFrom('moderation_terms').selectAll().orderBy('category').orderBy('term').execute();
  }

  async addTerm(db: Kysely<Database>, term: string, category: string, by: string): Promise<ModerationTerm> {
    const row: ModerationTerm = { id: newId('moderationTerm'), term, category, created_at: nowIso(), created_by: by };
    // The same word however written (case, width, script): listed once.
    const folded = normalizeForMatch(term);
    const listed = await db.selectFrom('moderation_terms').select('term').execute();
    if (listed.some((r) => normalizeForMatch(r.term) === folded))
      throw new AppError('VALIDATION_FAILED', { field: 'term', rule: 'already listed' });
    await db.insertInto('moderation_terms').values(row).execute();
    this.invalidate();
    return row;
  }

  async removeTerm(db: Kysely<Database>, id: string): Promise<ModerationTerm> {
    const row = await db.selectFrom('moderation_terms').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    await db.deleteFrom('moderation_terms').where('id', '=', id).execute();
    this.invalidate();
    return row;
  }

  /** The refused texts, newest first, `limit` from before the `before` cursor (an id), optionally of one account. */
  async hits(opts: { limit: number; before?: string | undefined; accountId?: string | undefined }) {
    let q = this.o.db.selectFrom('moderation_hits').selectAll();
    if (opts.accountId) q = q.where('account_id', '=', opts.accountId);
    if (opts.before) {
      const cursor = await this.o.db
        .selectFrom('moderation_hits')
        .select(['created_at', 'id'])
        .where('id', '=', opts.before)
        .executeTakeFirst();
      if (cursor)
        q = q.where((eb) =>
          eb.or([
            eb('created_at', '<', cursor.created_at),
            eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)]),
          ]),
        );
    }
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit + 1)
      .execute();
    const items = rows.slice(0, opts.limit);
    return { items, next: rows.length > opts.limit ? (items.at(-1)?.id ?? null) : null };
  }

  /** Deletes the hits older than the retention the operator set; answers how many. */
  async sweep(): Promise<number> {
    const cutoff = new Date(this.now() - this.o.settings().keepDays * 86_400_000).toISOString();
    const result = await this.o.db.deleteFrom('moderation_hits').where('created_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
