import type { HistoryItem, HistoryListResponse } from '@polyvox/contracts';
import { http } from '../api/client';

/** The account's generations on ElevenLabs' history routes (a session works as a key does). */

export type { HistoryItem };

const BASE = '/v1/history';
const at = (id: string) => `${BASE}/${encodeURIComponent(id)}`;

/** A page of items, newest first, after `after` (the last item of the page before). */
export function listHistory(search: string, after: string | undefined, signal?: AbortSignal): Promise<HistoryListResponse> {
  return http('GET', BASE, {
    query: { page_size: 20, search: search.trim() || undefined, start_after_history_item_id: after },
    signal,
  });
}

/** An item's audio as it was delivered: read again, never charged. */
export async function fetchHistoryAudio(id: string, signal?: AbortSignal): Promise<Blob> {
  const res = await http<Response>('GET', `${at(id)}/audio`, { raw: true, signal });
  return res.blob();
}

/** One item's file, as the download route gives it. */
export async function downloadHistory(id: string): Promise<Blob> {
  const res = await http<Response>('POST', `${BASE}/download`, { json: { history_item_ids: [id] }, raw: true });
  return res.blob();
}

export function deleteHistory(id: string): Promise<{ status: 'ok' }> {
  return http('DELETE', at(id));
}
