import { http } from '../api/client';
import type { QueryValue } from '../api/http';
import type { Estimate, RandomText, Spoken, SynthesisBody, SynthesisJob, TextType, TtsConfig, Voice, VoiceList } from './types';

export * from './types';

export function fetchTtsConfig(signal?: AbortSignal): Promise<TtsConfig> {
  return http('GET', '/tts/config', { signal });
}

export function listVoices(query: Record<string, QueryValue>, signal?: AbortSignal): Promise<VoiceList> {
  return http('GET', '/voice', { query, signal });
}

export function fetchVoice(id: string, signal?: AbortSignal): Promise<Voice> {
  return http('GET', '/voice', { query: { id }, signal });
}

/** `more`: the request's other fields that change the estimate (its pronunciation dictionaries). */
export function estimateCost(text: string, voiceId: string, signal?: AbortSignal, more: object = {}): Promise<Estimate> {
  return http('POST', '/tts/estimate', { json: { text, voice_id: voiceId, ...more }, signal });
}

/** POST /tts/normalize: the text as the voice will speak it (nothing is charged); SSML's errors name their line and column. */
export function spokenForm(text: string, voiceId: string, textType: TextType, signal?: AbortSignal): Promise<Spoken> {
  return http('POST', '/tts/normalize', { json: { text, voice_id: voiceId, text_type: textType }, signal });
}

export function fetchRandomText(lang: string): Promise<RandomText> {
  return http('GET', '/api/random/text', { query: { lang } });
}

/**
 * POST /tts with `stream: true` and `timestamps: true`: the Response whose body delivers, as it is made, lines of JSON
 * with the audio (base64) and the characters whose times are known by then.
 */
export function synthesizeStream(body: SynthesisBody, signal?: AbortSignal): Promise<Response> {
  return http('POST', '/tts', { json: { ...body, stream: true, timestamps: true }, raw: true, signal });
}

/** POST /tts for one whole file (no timings): the Response whose body is the audio, signed and labelled as a file. */
export function synthesizeFile(body: SynthesisBody, signal?: AbortSignal): Promise<Response> {
  return http('POST', '/tts', { json: { ...body, stream: false }, raw: true, signal });
}

export function createJob(body: SynthesisBody, signal?: AbortSignal): Promise<SynthesisJob> {
  return http('POST', '/tts/jobs', { json: body, signal });
}

export function fetchJob(id: string, signal?: AbortSignal): Promise<SynthesisJob> {
  return http('GET', `/tts/jobs/${encodeURIComponent(id)}`, { signal });
}

export function fetchJobAudio(id: string, signal?: AbortSignal): Promise<Response> {
  return http('GET', `/tts/jobs/${encodeURIComponent(id)}/audio`, { raw: true, signal });
}

/** A finished job's subtitles as text (`srt` or `vtt`). */
export async function fetchJobSubtitles(id: string, format: 'srt' | 'vtt', signal?: AbortSignal): Promise<string> {
  const res: Response = await http('GET', `/tts/jobs/${encodeURIComponent(id)}/subtitles`, {
    query: { format },
    raw: true,
    signal,
  });
  return res.text();
}
