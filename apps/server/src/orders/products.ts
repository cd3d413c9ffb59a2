import fs from 'node:fs';
import { z } from 'zod';
import { CURRENCIES, LIMITS, PLANS, type Currency, type MessageLocale, type Product, type ProductKind } from '@polyvox/contracts';

const Texts = z.object({ en: z.string().min(1), 'zh-CN': z.string().min(1), 'zh-TW': z.string().min(1) });
const Prices = z.object({ CNY: z.number().int().min(0), USD: z.number().int().min(0) });
const Privileges = z.object({
  // The OpenAI and ElevenLabs routes' schemas accept up to twice the contract's limit.
  max_text_length: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.maxTextLength * 2),
  own_voices: z.number().int().min(0),
  api_access: z.boolean(),
});

const PlanEntry = z.object({
  id: z.string().regex(/^[a-z0-9_]{1,64}$/),
  plan: z.enum(PLANS),
  vip_level: z.string().min(1),
  rank: z.number().int().min(0),
  credits: z.number().int().min(0),
  period_days: z.number().int().min(1).nullable(),
  prices: Prices,
  privileges: Privileges,
  name: Texts,
  description: Texts,
});
const PackEntry = z.object({
  id: z.string().regex(/^[a-z0-9_]{1,64}$/),
  credits: z.number().int().min(1),
  prices: Prices,
  name: Texts,
  description: Texts,
});

const ProductsFile = z
  .object({
    basic_plan: z.enum(PLANS),
    plans: z.array(PlanEntry).min(1),
    packs: z.array(PackEntry),
  })
  .superRefine((file, ctx) => {
    const ids = new Set<string>();
    for (const p of [...file.plans, ...file.packs]) {
      if (ids.has(p.id)) ctx.addIssue({ code: 'custom', message: `duplicate product id ${p.id}` });
      ids.add(p.id);
    }
    for (const plan of PLANS) {
      if (!file.plans.some((p) => p.plan === plan)) ctx.addIssue({ code: 'custom', message: `plan ${plan} is missing` });
    }
    for (const p of file.plans) {
      const sold = p.plan !== 'free';
      if (sold && (p.period_days === null || p.prices.CNY <= 0 || p.prices.USD <= 0))
        ctx.addIssue({ code: 'custom', message: `plan ${p.id} needs period_days and prices above zero` });
    }
    for (const p of file.packs) {
      if (p.prices.CNY <= 0 || p.prices.USD <= 0)
        ctx.addIssue({ code: 'custom', message: `pack ${p.id} needs prices above zero` });
    }
    const basic = file.plans.find((p) => p.plan === file.basic_plan);
    if (!basic || basic.plan === 'free' || basic.credits <= 0) {
      ctx.addIssue({ code: 'custom', message: 'basic_plan must be a sold plan that grants credits' });
    }
  });

/** One product as the server knows it: every language and every currency. */
export interface ProductEntry {
  id: string;
  kind: ProductKind;
  plan: (typeof PLANS)[number] | null;
  vipLevel: string | null;
  rank: number;
  credits: number;
  periodDays: number | null;
  prices: Record<Currency, number>;
  privileges: Product['privileges'];
  name: Record<MessageLocale, string>;
  description: Record<MessageLocale, string>;
  purchasable: boolean;
}

export interface Catalogue {
  list(kind?: ProductKind): ProductEntry[];
  /** A product by id; null for anything else, `constructor` and `__proto__` included. */
  get(id: string): ProductEntry | null;
  /** The plan whose price per credit values what an order used before its refund. */
  basic: ProductEntry;
  /** The rank of a vip level (free and unknown levels: 0). */
  rankOf(level: string): number;
  /** The privileges of a vip level; the free plan's for `free` and for any level no plan has. */
  privilegesOf(level: string): Product['privileges'];
  /** The longest text any plan allows (what the speech engine is configured to accept). */
  maxTextLength: number;
}

/** The free plan's privileges stand for accounts without a plan. */
export function loadProducts(file: string): Catalogue {
  const parsed = ProductsFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`PRODUCTS_CONFIG ${file}: ${parsed.error.message}`);
  const { plans, packs, basic_plan } = parsed.data;
  const entries: ProductEntry[] = [
    ...plans.map((p) => ({
      id: p.id,
      kind: 'plan' as const,
      plan: p.plan,
      vipLevel: p.vip_level,
      rank: p.rank,
      credits: p.credits,
      periodDays: p.period_days,
      prices: p.prices,
      privileges: p.privileges,
      name: p.name,
      description: p.description,
      purchasable: p.plan !== 'free',
    })),
    ...packs.map((p) => ({
      id: p.id,
      kind: 'credits' as const,
      plan: null,
      vipLevel: null,
      rank: 0,
      credits: p.credits,
      periodDays: null,
      prices: p.prices,
      privileges: plans.find((x) => x.plan === 'free')!.privileges,
      name: p.name,
      description: p.description,
      purchasable: true,
    })),
  ];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const ranks = new Map(plans.map((p) => [p.vip_level, p.rank]));
  const free = plans.find((p) => p.plan === 'free')!.privileges;
  const privileges = new Map(plans.map((p) => [p.vip_level, p.privileges]));
  return {
    privilegesOf: (level) => privileges.get(level) ?? free,
    maxTextLength: Math.max(...plans.map((p) => p.privileges.max_text_length)),
    list: (kind) => entries.filter((e) => !kind || e.kind === kind),
    get: (id) => byId.get(id) ?? null,
    basic: entries.find((e) => e.plan === basic_plan)!,
    rankOf: (level) => ranks.get(level) ?? 0,
  };
}

/** CNY for the Chinese locales, USD for everything else. */
export function currencyFor(locale: MessageLocale): Currency {
  return locale === 'zh-CN' || locale === 'zh-TW' ? 'CNY' : 'USD';
}

export function productView(entry: ProductEntry, locale: MessageLocale): Product {
  const currency = currencyFor(locale);
  return {
    id: entry.id,
    kind: entry.kind,
    plan: entry.plan,
    name: entry.name[locale],
    description: entry.description[locale],
    price: { amount: entry.prices[currency], currency },
    prices: CURRENCIES.map((c) => ({ amount: entry.prices[c], currency: c })),
    credits: entry.credits,
    period_days: entry.periodDays,
    vip_level: entry.vipLevel,
    privileges: entry.privileges,
    purchasable: entry.purchasable,
  };
}
