import { z } from 'zod';
import { CURRENCIES, PLANS, PRODUCT_KINDS } from './orders.js';
import { LIMITS } from './limits.js';

const Texts = z.object({
  en: z.string().trim().min(1).max(200),
  'zh-CN': z.string().trim().min(1).max(200),
  'zh-TW': z.string().trim().min(1).max(200),
});
const Price = z.number().int().min(0).max(100_000_000).describe('minor units');
export const CatalogPrivileges = z.object({
  max_text_length: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.maxTextLength * 2),
  own_voices: z.number().int().min(0).max(10_000),
  api_access: z.boolean(),
});

/** A product as the operator sees and edits it: every language, both currencies, shown or hidden. */
export const CatalogProductSchema = z
  .object({
    id: z.string(),
    kind: z.enum(PRODUCT_KINDS),
    plan: z.enum(PLANS).nullable(),
    vip_level: z.string().nullable(),
    credits: z.number().int(),
    period_days: z.number().int().nullable(),
    prices: z.object({ CNY: z.number().int(), USD: z.number().int() }),
    privileges: CatalogPrivileges,
    name: Texts,
    description: Texts,
    hidden: z.boolean(),
    purchasable: z.boolean(),
    updated_at: z.string(),
    updated_by: z.string().nullable(),
  })
  .meta({ id: 'CatalogProduct' });
export type CatalogProduct = z.infer<typeof CatalogProductSchema>;

export const CatalogQuery = z.object({
  kind: z.preprocess((v) => (v === '' ? undefined : v), z.enum(PRODUCT_KINDS).optional()),
});
export const CatalogResponse = z.object({
  items: z.array(CatalogProductSchema),
  version: z.number().int().describe('bumped by every edit; every process reloads when it changes'),
  basic_plan: z.enum(PLANS),
  currencies: z.array(z.enum(CURRENCIES)),
});

/** Only the fields given change; the result must still be a catalogue that sells (prices above zero, …). */
export const UpdateCatalogProductRequest = z
  .object({
    prices: z.object({ CNY: Price, USD: Price }).partial().optional(),
    credits: z.number().int().min(0).max(1_000_000_000).optional(),
    period_days: z.number().int().min(1).max(3660).optional().describe('plans only'),
    privileges: CatalogPrivileges.partial().optional().describe('plans only'),
    name: Texts.partial().optional(),
    description: Texts.partial().optional(),
    hidden: z.boolean().optional(),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .refine((b) => Object.keys(b).some((k) => k !== 'reason'), 'nothing to change');

/** A new product or plan: every language, both currencies; a plan names its period and the privileges of its level. */
export const CreateCatalogProductRequest = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/)
      .describe('lower-case letters, digits, - and _; never one used before'),
    kind: z.enum(PRODUCT_KINDS),
    plan: z.enum(PLANS).optional().describe('plans only: the period it sells'),
    vip_level: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/)
      .optional()
      .describe('plans only: the level its holders get'),
    rank: z.number().int().min(0).max(1000).optional().describe('plans only: higher levels rank higher'),
    credits: z.number().int().min(0).max(1_000_000_000),
    period_days: z.number().int().min(1).max(3660).optional().describe('plans only'),
    prices: z.object({ CNY: Price, USD: Price }),
    privileges: CatalogPrivileges.optional().describe("plans only; the free plan's when left out"),
    name: Texts,
    description: Texts,
    hidden: z.boolean().optional(),
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .refine((b) => b.kind === 'plan' || (b.plan === undefined && b.vip_level === undefined && b.period_days === undefined), {
    message: 'a credit pack has no plan, level or period',
  })
  .refine((b) => b.kind === 'credits' || (b.plan !== undefined && b.vip_level !== undefined), {
    message: 'a plan names its period (plan) and level (vip_level)',
  });
export type CreateCatalogProductBody = z.infer<typeof CreateCatalogProductRequest>;
export const RetireCatalogProductQuery = z.object({ reason: z.string().trim().min(1).max(500).optional() });
