import { z } from 'zod';

/** The operator console's accounts (`/admin/api/accounts…`) and overview (`/admin/api/overview`). */

export const ACCOUNT_STATUSES = ['active', 'disabled'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** A filter left empty (`status=`) is no filter. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** An operator's reason for a money or account action: required, written to the audit trail (and shown on a grant). */
export const OperatorReason = z.string().trim().min(1).max(500).describe("the operator's reason (1 to 500 characters)");

const paging = {
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
};

export const AccountSearchQuery = z
  .object({
    q: optional(z.string().trim().max(200)).describe(
      'an email (whole, or its beginning), a phone number, an account id (`acc_…`), an API key or its prefix (`pvx_…`), a key id (`key_…`) or an order id (`ord_…`); empty: every account, newest first',
    ),
    status: optional(z.enum(ACCOUNT_STATUSES)),
    ...paging,
  })
  .passthrough();
export type AccountSearchQuery = z.infer<typeof AccountSearchQuery>;

export const AdminAccountSummary = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    mobile: z.string().nullable(),
    name: z.string().nullable(),
    anonymous: z.boolean(),
    credits: z.number().int(),
    vip_level: z.string(),
    vip_expire: z.string().nullable(),
    status: z.enum(ACCOUNT_STATUSES),
    disabled_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'AdminAccountSummary' });
export type AdminAccountSummary = z.infer<typeof AdminAccountSummary>;

export const AccountSearchResponse = z.object({
  items: z.array(AdminAccountSummary),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type AccountSearchResponse = z.infer<typeof AccountSearchResponse>;

export const AdminAccountDetail = AdminAccountSummary.extend({
  disabled_reason: z.string().nullable(),
  referral_code: z.string(),
  channel: z.string(),
  /** The balance the records show: the balance plus what open holds keep. */
  records_balance: z.number().int(),
  held: z.number().int().describe('credits held right now by work in flight'),
  updated_at: z.string(),
}).meta({ id: 'AdminAccountDetail' });
export type AdminAccountDetail = z.infer<typeof AdminAccountDetail>;

export const AdminAccountPage = z.object({
  account: AdminAccountDetail,
  keys: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      prefix: z.string(),
      credit_limit: z.number().int().nullable(),
      used: z.number().int(),
      created_at: z.string(),
      last_used_at: z.string().nullable(),
      deleted_at: z.string().nullable(),
    }),
  ),
  voices: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: z.string(),
      model: z.string(),
      status: z.string(),
      created_at: z.string(),
    }),
  ),
  samples: z.array(
    z.object({
      id: z.string(),
      idx: z.number().int(),
      format: z.string(),
      size: z.number().int(),
      duration: z.number(),
      consent_at: z.string(),
      consent_ip: z.string(),
      created_at: z.string(),
    }),
  ),
  sessions: z.array(
    z.object({
      created_at: z.string(),
      expires_at: z.string(),
      revoked_at: z.string().nullable(),
      user_agent: z.string().nullable(),
      live: z.boolean(),
    }),
  ),
  reports: z
    .array(
      z.object({
        id: z.string(),
        status: z.enum(['new', 'in_review', 'actioned', 'rejected']),
        reason: z.string(),
        voice_id: z.string().nullable(),
        created_at: z.string(),
      }),
    )
    .describe('reports of misuse about the account: its voice, or audio whose provenance names it (the newest list_limit)'),
  /** Every list but the ledger and the orders (paged on their own routes) holds the newest this many at most. */
  list_limit: z.number().int(),
});
export type AdminAccountPage = z.infer<typeof AdminAccountPage>;

export const AdminPageQuery = z.object(paging).passthrough();

export const AdminLedgerResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      record_type: z.string().nullable(),
      amount: z.number().int(),
      balance_after: z.number().int(),
      charge: z.number().int().nullable(),
      characters: z.number().int().nullable(),
      voice_id: z.string().nullable(),
      api_key_id: z.string().nullable(),
      order_id: z.string().nullable(),
      hold_id: z.string().nullable(),
      note: z.string().nullable(),
      reason: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  /** Sum of every entry's amount: equals the balance (the ledger's invariant). */
  ledger_sum: z.number().int(),
});
export type AdminLedgerResponse = z.infer<typeof AdminLedgerResponse>;

export const AdminAccountOrdersResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      product_id: z.string(),
      product_kind: z.string(),
      credits: z.number().int(),
      amount: z.number().int(),
      currency: z.string(),
      status: z.string(),
      method: z.string().nullable(),
      created_at: z.string(),
      paid_at: z.string().nullable(),
      refunded_at: z.string().nullable(),
    }),
  ),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type AdminAccountOrdersResponse = z.infer<typeof AdminAccountOrdersResponse>;

export const CreditAdjustRequest = z.object({
  amount: z.number().int().min(1).max(1_000_000_000).describe('credits, a whole number above zero'),
  reason: OperatorReason,
});
export const CreditAdjustResponse = z.object({
  balance: z.number().int(),
  record_id: z.string(),
});

export const AccountActionRequest = z.object({ reason: OperatorReason });
export const AccountStatusResponse = z.object({
  account: AdminAccountDetail,
  sessions_ended: z.number().int(),
  /** On a disable: credits of work in flight given back (their holds released). */
  released_credits: z.number().int(),
  /** On a disable: jobs stopped. */
  jobs_cancelled: z.number().int(),
});
export type AccountStatusResponse = z.infer<typeof AccountStatusResponse>;

// ---- Overview ----

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const day = z
  .string()
  .regex(DAY, 'must be a day (YYYY-MM-DD)')
  .refine((s) => new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s, 'must be a real day');

export const OverviewQuery = z
  .object({
    // Every console request carries `from=web`: that marker is no date.
    from: z
      .preprocess((v) => (v === '' || v === 'web' ? undefined : v), day.optional())
      .describe('the first UTC day (default: 29 days before `to`)'),
    to: optional(day).describe('the last UTC day, included (default: today)'),
  })
  .passthrough();

const perDay = <T extends z.ZodRawShape>(shape: T) => z.array(z.object({ day: z.string(), ...shape }));

export const OverviewResponse = z
  .object({
    from: z.string(),
    to: z.string(),
    revenue: perDay({ currency: z.string(), method: z.string(), amount: z.number().int(), orders: z.number().int() }).describe(
      'paid orders by the day they were paid, currency and payment method; amounts in minor units',
    ),
    orders_by_status: z.array(z.object({ status: z.string(), orders: z.number().int() })).describe('orders made in the range'),
    accounts: perDay({ new_accounts: z.number().int(), new_registered: z.number().int(), active: z.number().int() }),
    engines: perDay({ engine: z.string(), syntheses: z.number().int(), characters: z.number().int() }).describe(
      'pieces of audio delivered (provenance records) and the characters they were paid for, by engine',
    ),
    credits: perDay({
      granted: z.number().int(),
      deducted: z.number().int(),
      bought: z.number().int(),
      spent: z.number().int(),
      refunded: z.number().int(),
    }),
    speech: z
      .object({
        requests: z.number().int(),
        client_errors: z.number().int(),
        server_errors: z.number().int(),
        error_rate: z.number(),
        p95_seconds: z.number().nullable(),
        scope: z.literal('range'),
        since: z.string().describe('the start of the range (ISO time)'),
      })
      .describe(
        'the speech routes over the range, as every process answered them (hourly counts in the database; a process adds its own every 10 seconds)',
      ),
    queues: z
      .object({
        role: z.string(),
        depth: z.record(z.string(), z.number().int()).nullable(),
        workers: z.number().int().nullable(),
      })
      .describe('ROLE=api: the queues in Redis and the workers whose heartbeat is alive; null where there is no queue'),
    engines_health: z.object({
      started: z.boolean(),
      ready: z.boolean(),
      models: z.array(z.object({ id: z.string(), engine: z.string(), type: z.string(), voices: z.number().int() })),
      unavailable: z.array(z.object({ provider: z.string(), code: z.string(), message: z.string() })),
      problems: z.array(z.object({ folder: z.string(), message: z.string() })),
    }),
  })
  .meta({ id: 'Overview' });
export type OverviewResponse = z.infer<typeof OverviewResponse>;

/**
 * A cloned voice of an account as the operator sees it: its live voices, and those its owner deleted whose sample
 * and consent are kept until `purge_after` (VOICE_RETENTION_DAYS after the deletion).
 */
export const AdminClonedVoice = z
  .object({
    id: z.string(),
    name: z.string(),
    model: z.string(),
    status: z.enum(['active', 'taken_down', 'deleted']),
    created_at: z.string(),
    deleted_at: z.string().nullable(),
    purge_after: z.string().nullable(),
    sample: z
      .object({
        id: z.string(),
        format: z.string(),
        size: z.number().int(),
        duration: z.number(),
        sha256: z.string().nullable(),
        created_at: z.string(),
        consent_at: z.string(),
        consent_ip: z.string(),
      })
      .nullable()
      .describe('the sample it was cloned from, with its consent record; null when it is no longer kept'),
  })
  .meta({ id: 'AdminClonedVoice' });
export type AdminClonedVoice = z.infer<typeof AdminClonedVoice>;
export const AdminClonedVoiceList = z.object({ items: z.array(AdminClonedVoice), retention_days: z.number().int() });
export type AdminClonedVoiceList = z.infer<typeof AdminClonedVoiceList>;
/** Why the operator opens a sample: written to the audit trail with who and when. */
export const SampleAccessQuery = z.object({
  reason: OperatorReason,
  download: z.enum(['true', 'false']).optional(),
});
