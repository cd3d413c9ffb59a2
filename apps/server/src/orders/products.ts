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

const ProductsFile = z.object({
  basic_plan: z.enum(PLANS),
  plans: z.array(PlanEntry).min(1),
  packs: z.array(PackEntry),
});

/** The catalogue's own rules, for the seed file and for every operator's edit: what a sale needs to make sense. */
export function catalogueProblems(entries: readonly ProductEntry[], basicPlan: string): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const p of entries) {
    if (ids.has(p.id)) problems.push(`duplicate product id ${p.id}`);
    ids.add(p.id);
  }
  const plans = entries.filter((e) => e.kind === 'plan');
  for (const plan of PLANS) if (!plans.some((p) => p.plan === plan)) problems.push(`plan ${plan} is missing`);
  for (const p of plans) {
    if (p.plan !== 'free' && (p.periodDays === null || p.prices.CNY <= 0 || p.prices.USD <= 0))
      problems.push(`plan ${p.id} needs period_days and prices above zero`);
  }
  for (const p of entries.filter((e) => e.kind === 'credits')) {
    if (p.prices.CNY <= 0 || p.prices.USD <= 0) problems.push(`pack ${p.id} needs prices above zero`);
    if (p.credits <= 0) problems.push(`pack ${p.id} needs credits above zero`);
  }
  const basic = plans.find((p) => p.plan === basicPlan);
  if (!basic || basic.plan === 'free' || basic.credits <= 0) problems.push('basic_plan must be a sold plan that grants credits');
  return problems;
}

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
  /** Hidden from the public listing and not for sale; holders of a hidden plan keep its privileges. */
  hidden: boolean;
  /** Retired (deleted by an operator): neither listed nor sold, even to the console; holders keep its privileges. */
  retired?: boolean;
}

export interface Catalogue {
  /** The products shown to the public (hidden ones left out unless `all`). */
  list(kind?: ProductKind, options?: { all?: boolean }): ProductEntry[];
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

/** The catalogue as it is now: the database's copy, read again once it changed (every process, no restart). */
export interface CatalogueSource {
  /** Checks the stored version (at most once per the cache's lifetime) and reloads if it moved. */
  current(): Promise<Catalogue>;
  /** The copy loaded last, without a look at the database (for what must answer synchronously). */
  latest(): Catalogue;
}

/** A fixed catalogue (the seed file, a test's): never changes. */
export function fixedCatalogue(catalogue: Catalogue): CatalogueSource {
  return { current: () => Promise.resolve(catalogue), latest: () => catalogue };
}

/** The seed file (`PRODUCTS_CONFIG`): the catalogue's first rows; from then on the database holds it. */
export function readProductsFile(file: string): { basicPlan: (typeof PLANS)[number]; entries: ProductEntry[] } {
  const parsed = ProductsFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`PRODUCTS_CONFIG ${file}: ${parsed.error.message}`);
  const { plans, packs, basic_plan } = parsed.data;
  const free = plans.find((x) => x.plan === 'free')?.privileges;
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
      hidden: false,
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
      privileges: free ?? { max_text_length: LIMITS.maxTextLength, own_voices: 0, api_access: false },
      name: p.name,
      description: p.description,
      purchasable: true,
      hidden: false,
    })),
  ];
  const problems = catalogueProblems(entries, basic_plan);
  if (problems.length) throw new Error(`PRODUCTS_CONFIG ${file}: ${problems.join('; ')}`);
  return { basicPlan: basic_plan, entries };
}

/** A catalogue of these entries (checked by `catalogueProblems` before). The free plan's privileges stand for accounts without a plan. */
export function buildCatalogue(entries: readonly ProductEntry[], basicPlan: string): Catalogue {
  // Retired plans first: their holders keep their privileges, and a live plan of the same level wins.
  const plans = [
    ...entries.filter((e) => e.kind === 'plan' && e.retired),
    ...entries.filter((e) => e.kind === 'plan' && !e.retired),
  ];
  const ranks = new Map(plans.map((p) => [p.vipLevel!, p.rank]));
  const freePlan = plans.find((p) => p.plan === 'free' && !p.retired)!;
  const free = freePlan.privileges;
  const privileges = new Map(plans.map((p) => [p.vipLevel!, p.privileges]));
  // A pack grants no plan: its privileges are the free plan's, whatever the free plan says now.
  const shown = entries.filter((e) => !e.retired).map((e) => (e.kind === 'credits' ? { ...e, privileges: free } : e));
  const byId = new Map(shown.map((e) => [e.id, e]));
  return {
    privilegesOf: (level) => privileges.get(level) ?? free,
    maxTextLength: Math.max(...plans.map((p) => p.privileges.max_text_length)),
    list: (kind, options) => shown.filter((e) => (!kind || e.kind === kind) && (options?.all || !e.hidden)),
    get: (id) => byId.get(id) ?? null,
    basic: shown.find((e) => e.plan === basicPlan)!,
    rankOf: (level) => ranks.get(level) ?? 0,
  };
}

/** The seed file read into a catalogue, as the server used it before the catalogue moved into the database. */
export function loadProducts(file: string): Catalogue {
  const { basicPlan, entries } = readProductsFile(file);
  return buildCatalogue(entries, basicPlan);
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
