import type { Account } from '@polyvox/contracts';
import type { AccountRow } from './repository.js';

/** The contract's Account shape, built from a row; never carries secrets other than the caller's own sid. */
export function toAccount(
  row: AccountRow,
  sid: string | null,
  referral: Account['referral'],
  publicUrl: (path: string) => string,
): Account {
  return {
    id: row.id,
    sid,
    code: row.referral_code,
    // A plan's level holds until its expiry; after it, the account is back on the free plan.
    vip: {
      level: row.vip_expire && Date.parse(row.vip_expire) <= Date.now() ? 'free' : row.vip_level,
      credits: Number(row.credits),
      expire: row.vip_expire,
    },
    create_at: row.created_at,
    name: row.name,
    email: row.email,
    mobile: row.mobile,
    avatar: row.avatar ? publicUrl(row.avatar) : null,
    referral,
    binds: [...(row.email ? ['email'] : []), ...(row.mobile ? ['mobile'] : [])],
    additions: {},
    anonymous: row.anonymous === 1,
  };
}
