import type { RecordFilters } from '../api/economy';

/** What the usage page's filters hold: dates as the date inputs give them (YYYY-MM-DD, the user's days). */
export interface UsageFilterState {
  type: string | null;
  from: string;
  to: string;
  apiKey: string | null;
}

export const EMPTY_FILTERS: UsageFilterState = { type: null, from: '', to: '', apiKey: null };

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local calendar day's first (or last) millisecond as an ISO-8601 UTC instant; null for anything else. */
export function dayBound(day: string, end: boolean): string | null {
  const m = DAY.exec(day);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const date = end ? new Date(y, mo, d, 23, 59, 59, 999) : new Date(y, mo, d, 0, 0, 0, 0);
  if (date.getFullYear() !== y || date.getMonth() !== mo || date.getDate() !== d) return null;
  return date.toISOString();
}

/** The filters as the records route takes them; a range given backwards is read the right way round. */
export function recordQuery(state: UsageFilterState): RecordFilters {
  let [from, to] = [state.from, state.to];
  if (from && to && from > to) [from, to] = [to, from];
  return {
    type: state.type || undefined,
    from: (from && dayBound(from, false)) || undefined,
    to: (to && dayBound(to, true)) || undefined,
    api_key: state.apiKey || undefined,
  };
}

/** A statistics day (YYYY-MM-DD, UTC) as a short label in the UI locale: "Nov 25", "11月25日". */
export function dayLabel(day: string, locale: string): string {
  const m = DAY.exec(day);
  if (!m) return day;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(date);
}

/** Pages needed for `total` rows. */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / pageSize));
}

/** Date and time of a record or order in the UI locale. */
export function formatDateTime(iso: string | null | undefined, locale: string): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}
