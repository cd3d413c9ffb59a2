import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { QueryValue } from '../../../api/http';
import { listVoices } from '../../../speech/api';
import { voiceListQuery, VOICES_PAGE_SIZE, type VoiceFilters } from '../../../speech/voice-query';

/**
 * One page of the official library; the previous page stays on screen while the next loads.
 * `extra` adds fixed conditions (the mixer lists only mixable voices: `mix: 'true'`).
 */
export function useVoiceList(
  filters: VoiceFilters,
  page: number,
  pageSize = VOICES_PAGE_SIZE,
  extra?: Record<string, QueryValue>,
) {
  const query = { ...voiceListQuery(filters, page, pageSize), ...extra };
  return useQuery({
    queryKey: ['voices', query],
    queryFn: ({ signal }) => listVoices(query, signal),
    placeholderData: keepPreviousData,
    staleTime: 5 * 60_000,
  });
}
