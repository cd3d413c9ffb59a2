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

/** "812 B", "64.2 kB", "1.3 MB": sizes in the UI locale (decimal units, as browsers show downloads). */
export function formatBytes(bytes: number, locale: string): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
  let value = Math.max(0, bytes);
  if (value < 1000) return `${new Intl.NumberFormat(locale).format(Math.round(value))} B`;
  let i = 0;
  while (value >= 1000 && i < units.length - 1) {
    value /= 1000;
    i++;
  }
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: units[i],
    unitDisplay: 'short',
    maximumFractionDigits: 1,
  }).format(value);
}

/** A playback position as m:ss (h:mm:ss past an hour). */
export function formatClock(seconds: number): string {
  const s = Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/**
 * The player's "elapsed / total": both counted the same way (whole seconds, rounded), and the
 * elapsed time never passes the total, so a finished 4.7 s clip reads 0:05 / 0:05, not 0:04 / 0:05.
 */
export function playerClock(time: number, total: number, ended: boolean): { elapsed: string; total: string } {
  const whole = (s: number) => (Number.isFinite(s) && s > 0 ? Math.round(s) : 0);
  const all = whole(total);
  const at = ended ? all : Math.min(whole(time), all || whole(time));
  return { elapsed: formatClock(at), total: formatClock(all) };
}

/** Seconds with one decimal, e.g. "3.4". */
export function formatSeconds(seconds: number, locale: string): string {
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(Math.max(0, seconds));
}
