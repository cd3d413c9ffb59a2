import type { QueryValue } from '../api/http';
import { GENDER_VALUES, type Gender } from './types';

/** What the voice lists filter by; an absent field is not filtered on. */
export interface VoiceFilters {
  model?: string;
  /** One language code (the API takes a comma list; the console filters by one at a time). */
  language?: string;
  gender?: Gender;
  name?: string;
  /** Only neural voices. */
  neural?: boolean;
}

export const VOICES_PAGE_SIZE = 20;

export function isGender(value: string | null | undefined): value is Gender {
  return !!value && (GENDER_VALUES as readonly string[]).includes(value);
}

function clean(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export function normalizeFilters(filters: VoiceFilters): VoiceFilters {
  const out: VoiceFilters = {};
  const model = clean(filters.model);
  const language = clean(filters.language);
  const name = clean(filters.name)?.slice(0, 100);
  if (model) out.model = model;
  if (language) out.language = language;
  if (isGender(filters.gender)) out.gender = filters.gender;
  if (name) out.name = name;
  if (filters.neural === true) out.neural = true;
  return out;
}

/** GET /voice's query for the official library. */
export function voiceListQuery(filters: VoiceFilters, page: number, pageSize = VOICES_PAGE_SIZE): Record<string, QueryValue> {
  const f = normalizeFilters(filters);
  return {
    source: 'official',
    page: Math.max(1, Math.floor(page) || 1),
    page_size: pageSize,
    model: f.model,
    languages: f.language,
    gender: f.gender,
    name: f.name,
    ...(f.neural ? { neural: 'true' } : {}),
  };
}

/** The voices page keeps its filters and page in the hash route's query: /app/voices?model=flite&page=2. */
export function filtersFromSearch(params: URLSearchParams): { filters: VoiceFilters; page: number } {
  const gender = params.get('gender');
  const filters = normalizeFilters({
    model: params.get('model') ?? undefined,
    language: params.get('language') ?? undefined,
    gender: isGender(gender) ? gender : undefined,
    name: params.get('name') ?? undefined,
    neural: params.get('neural') === '1',
  });
  const page = Number.parseInt(params.get('page') ?? '1', 10);
  return { filters, page: Number.isFinite(page) && page > 0 ? page : 1 };
}

export function filtersToSearch(filters: VoiceFilters, page = 1): URLSearchParams {
  const f = normalizeFilters(filters);
  const params = new URLSearchParams();
  if (f.model) params.set('model', f.model);
  if (f.language) params.set('language', f.language);
  if (f.gender) params.set('gender', f.gender);
  if (f.name) params.set('name', f.name);
  if (f.neural) params.set('neural', '1');
  if (page > 1) params.set('page', String(page));
  return params;
}

/** The voices page, filtered (the models page links here). */
export function voicesPath(filters: VoiceFilters): string {
  const search = filtersToSearch(filters).toString();
  return search ? `/app/voices?${search}` : '/app/voices';
}

export function playgroundPath(voiceId: string): string {
  return `/app/playground?${new URLSearchParams({ voice: voiceId }).toString()}`;
}

/** The mixer, opened with this voice as its first. */
export function mixPath(voiceId: string): string {
  return `/app/mix?${new URLSearchParams({ voice: voiceId }).toString()}`;
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / Math.max(1, pageSize)));
}
