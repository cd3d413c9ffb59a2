import { z } from 'zod';
import { PLANS } from './orders.js';

/** Redemption codes: what a user types (any case, with or without the dashes and spaces) and what it gave. */
export const RedeemRequest = z.object({ code: z.string().trim().min(1).max(64).describe('the code, dashes and spaces ignored') });
export const RedeemResponse = z
  .object({
    credits: z.number().int().describe('credits added to the balance'),
    plan: z.enum(PLANS).nullable().describe('the plan the code granted; null for a credits code'),
    balance: z.number().int().describe('the balance after the redemption'),
  })
  .meta({ id: 'Redemption' });

export const CODE_BATCH_KINDS = ['credits', 'plan'] as const;
export const CODE_BATCH_STATES = ['active', 'used_up', 'expired', 'revoked'] as const;
export const CODE_STATES = ['unused', 'partly_used', 'used_up'] as const;

/** Written by the operator: upper-case letters and digits; codes are shown as PREFIX-XXXX-XXXX-XXXX-XXXX. */
export const CODE_PREFIX = /^[A-Z0-9]{0,12}$/;
export const CODE_BATCH_MAX = 10_000;

const reason = z.string().trim().min(1).max(500);

export const CreateCodeBatchRequest = z
  .object({
    name: z.string().trim().min(1).max(100),
    kind: z.enum(CODE_BATCH_KINDS),
    credits: z.number().int().min(1).max(100_000_000).optional().describe('credits code: the credits each use gives'),
    product: z.string().min(1).max(64).optional().describe('plan code: the plan product granted (its credits and period)'),
    count: z.number().int().min(1).max(CODE_BATCH_MAX),
    uses_per_code: z.number().int().min(1).max(100_000).default(1).describe('how many accounts may use each code (each once)'),
    prefix: z.string().max(12).regex(CODE_PREFIX, 'upper-case letters and digits, at most 12').default(''),
    expires_at: z.iso.datetime({ offset: true }).nullable().default(null),
    reason,
  })
  .superRefine((b, ctx) => {
    if (b.kind === 'credits' && b.credits === undefined)
      ctx.addIssue({ code: 'custom', path: ['credits'], message: 'a credits code needs credits' });
    if (b.kind === 'plan' && b.product === undefined)
      ctx.addIssue({ code: 'custom', path: ['product'], message: 'a plan code needs a plan product' });
  });

export const CodeBatchSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(CODE_BATCH_KINDS),
    credits: z.number().int(),
    product: z.string().nullable(),
    plan: z.enum(PLANS).nullable(),
    period_days: z.number().int().nullable(),
    count: z.number().int(),
    uses_per_code: z.number().int(),
    used: z.number().int().describe('uses so far, over every code of the batch'),
    prefix: z.string(),
    state: z.enum(CODE_BATCH_STATES),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    created_by: z.string(),
  })
  .meta({ id: 'CodeBatch' });
export type CodeBatch = z.infer<typeof CodeBatchSchema>;

export const CreateCodeBatchResponse = z.object({
  batch: CodeBatchSchema,
  codes: z.array(z.string()).describe('the codes in plain text (also available later in the CSV export)'),
});

export const CodeBatchesQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
  state: z.preprocess((v) => (v === '' ? undefined : v), z.enum(CODE_BATCH_STATES).optional()),
  kind: z.preprocess((v) => (v === '' ? undefined : v), z.enum(CODE_BATCH_KINDS).optional()),
});
export const CodeBatchesResponse = z.object({ items: z.array(CodeBatchSchema), total: z.number().int() });

export const BatchCodesQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
  state: z.preprocess((v) => (v === '' ? undefined : v), z.enum(CODE_STATES).optional()),
});
export const RedemptionCodeSchema = z
  .object({
    id: z.string(),
    code: z.string().describe('masked: the prefix and the last four characters'),
    uses: z.number().int(),
    max_uses: z.number().int(),
    state: z.enum(CODE_STATES),
    redemptions: z.array(z.object({ account_id: z.string(), email: z.string().nullable(), at: z.string() })),
  })
  .meta({ id: 'RedemptionCode' });
export const BatchCodesResponse = z.object({ items: z.array(RedemptionCodeSchema), total: z.number().int() });

export const RevokeCodeBatchRequest = z.object({ reason });
