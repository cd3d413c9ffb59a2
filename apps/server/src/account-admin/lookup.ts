import { sql, type Selectable, type SqlBool } from 'kysely';
import type { AccountStatus, AdminAccountSummary } from '@polyvox/contracts';
import type { AccountsTable } from '../platform/db/schema.js';
import type { Dialect } from '../platform/db/database.js';

/** The newest this many keys, voices, samples and sessions are listed on an account's page. */
export const LIST_LIMIT = 100;

export type AccountRow = Selectable<AccountsTable>;

export function summary(row: AccountRow): AdminAccountSummary {
  return {
    id: row.id,
    email: row.email,
    mobile: row.mobile,
    name: row.name,
    anonymous: Number(row.anonymous) === 1,
    credits: Number(row.credits),
    vip_level: row.vip_level,
    vip_expire: row.vip_expire,
    status: (row.status ?? 'active') as AccountStatus,
    disabled_at: row.disabled_at ?? null,
    created_at: row.created_at,
  };
}

/** `%`, `_` and `\` taken literally in a PostgreSQL LIKE pattern (whose escape character is `\`). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `column` starts with `prefix`, through an index on either database: PostgreSQL's LIKE with a fixed prefix uses the
 * `text_pattern_ops` indexes of migration 0016; SQLite (whose LIKE ignores case and takes no index here) a range of
 * its binary order, up to the prefix followed by the highest code point.
 */
export function startsWith(dialect: Dialect, column: 'accounts.email' | 'api_keys.prefix', prefix: string) {
  if (dialect === 'postgres') return sql<SqlBool>`${sql.ref(column)} LIKE ${`${likeLiteral(prefix)}%`}`;
  return sql<SqlBool>`(${sql.ref(column)} >= ${prefix} AND ${sql.ref(column)} < ${`${prefix}\u{10FFFF}`})`;
}

/** The forms a phone number may be stored in: as typed, digits with `+`, and a mainland number with +86. */
export function phoneForms(q: string): string[] {
  const digits = q.replace(/[\s\-()]/g, '');
  if (!/^\+?\d{5,16}$/.test(digits)) return [];
  const bare = digits.replace(/^\+/, '');
  const forms = new Set([q, digits, `+${bare}`]);
  if (/^1\d{10}$/.test(bare)) forms.add(`+86${bare}`);
  return [...forms];
}
