/** Dates and numbers in the UI locale; the server sends ISO-8601 UTC strings. */
export function formatDate(iso: string | null | undefined, locale: string): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric' }).format(date);
}

export function formatNumber(value: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(value);
}

const PLAN_KEYS = ['free', 'trial', 'monthly', 'quarterly', 'half_year', 'annual'] as const;
export type PlanKey = (typeof PLAN_KEYS)[number];

export function planKey(level: string): PlanKey | null {
  return (PLAN_KEYS as readonly string[]).includes(level) ? (level as PlanKey) : null;
}
