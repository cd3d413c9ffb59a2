import { browserUploadDeps, http, requestQueue } from '../api/client';
import type { QueryValue } from '../api/http';
import type { VoiceList } from '../speech/types';
import type {
  CloneSample,
  PreviewAnswer,
  PreviewBody,
  PreviewEstimate,
  PreviewList,
  RenameVoiceBody,
  SampleList,
  SaveVoiceBody,
  Voice,
} from './types';

import { sendSample, type UploadProgress } from './upload';

export * from './types';
export type { UploadProgress };

export const PREVIEWS_KEY = 'voice-previews';
export const MY_VOICES_KEY = 'my-voices';

export function createPreview(body: PreviewBody, signal?: AbortSignal): Promise<PreviewAnswer> {
  return http('POST', '/voice/previews', { json: body, signal });
}

export function listPreviews(page: number, pageSize: number, signal?: AbortSignal): Promise<PreviewList> {
  return http('GET', '/voice/previews', { query: { page, page_size: pageSize }, signal });
}

export function saveVoice(body: SaveVoiceBody): Promise<Voice> {
  return http('PUT', '/voice', { json: body });
}

export function renameVoice(body: RenameVoiceBody): Promise<Voice> {
  return http('PATCH', '/voice', { json: body });
}

export function deleteVoice(id: string): Promise<void> {
  return http('DELETE', '/voice', { query: { id } });
}

export function listMyVoices(query: Record<string, QueryValue>, signal?: AbortSignal): Promise<VoiceList> {
  return http('GET', '/voice', { query: { ...query, source: 'mine' }, signal });
}

/** A preview's audio, fetched with the session (the waveform is drawn from its bytes). */
/** A preview's subtitles (WebVTT for the transcript, SubRip to save); a preview whose voice has no timings answers 404. */
export async function fetchPreviewSubtitles(id: string, format: 'srt' | 'vtt', signal?: AbortSignal): Promise<string> {
  const res: Response = await http('GET', `/voice/previews/${encodeURIComponent(id)}/subtitles`, {
    query: { format },
    raw: true,
    signal,
  });
  return res.text();
}

export async function fetchPreviewAudio(url: string, signal?: AbortSignal): Promise<Blob> {
  const path = new URL(url, window.location.origin);
  if (path.origin !== window.location.origin) {
    // Audio kept in a bucket: a signed address, fetched as it is.
    const res = await fetch(path, { signal });
    if (!res.ok) throw new Error(`audio ${res.status}`);
    return res.blob();
  }
  const query: Record<string, string> = {};
  path.searchParams.forEach((v, k) => (query[k] = v));
  const res = await http<Response>('GET', path.pathname, { query, raw: true, signal });
  return res.blob();
}

/** The console's upload: waits for the session like every request, then sends with progress. */
export function uploadSample(file: File, onProgress: (p: UploadProgress) => void, signal?: AbortSignal): Promise<CloneSample> {
  return requestQueue.enqueue(() => sendSample(file, file.name, onProgress, browserUploadDeps(), signal));
}

/** The price of a preview request before it is made (nothing is charged): per model, the activation fee, the plan's room. */
export function estimatePreview(body: PreviewBody, signal?: AbortSignal): Promise<PreviewEstimate> {
  return http('POST', '/voice/previews/estimate', { json: body, signal });
}

export const SAMPLES_KEY = 'clone-samples';

/** The account's uploaded samples, newest first. */
export function listSamples(page: number, pageSize: number, signal?: AbortSignal): Promise<SampleList> {
  return http('GET', '/files', { query: { type: 'clone', page, page_size: pageSize }, signal });
}
