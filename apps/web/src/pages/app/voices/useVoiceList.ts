import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { listVoices } from '../../../speech/api';
import { voiceListQuery, VOICES_PAGE_SIZE, type VoiceFilters } from '../../../speech/voice-query';

/** One page of the official library; the previous page stays on screen while the next loads. */
export function useVoiceList(filters: VoiceFilters, page: number, pageSize = VOICES_PAGE_SIZE) {
  const query = voiceListQuery(filters, page, pageSize);
  return useQuery({
    queryKey: ['voices', query],
    queryFn: ({ signal }) => listVoices(query, signal),
    placeholderData: keepPreviousData,
    staleTime: 5 * 60_000,
  });
}
