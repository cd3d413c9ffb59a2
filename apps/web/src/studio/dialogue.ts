import { http } from '../api/client';
import type { Estimate } from '../speech/types';

/** ElevenLabs' text-to-dialogue as the console calls it: turns of a voice and a text, one file back. */

export const DIALOGUE_FORMAT = 'mp3_44100_128';

export function estimateDialogue(inputs: { text: string; voice_id: string }[], signal?: AbortSignal): Promise<Estimate> {
  return http('POST', '/tts/estimate', { json: { inputs }, signal });
}

/** POST /v1/text-to-dialogue: the whole dialogue as one MP3, labelled and signed as every Polyvox file. */
export async function generateDialogue(
  inputs: { text: string; voice_id: string }[],
  signal?: AbortSignal,
): Promise<{ blob: Blob; characters: number | null }> {
  const res = await http<Response>('POST', '/v1/text-to-dialogue', {
    json: { inputs, output_format: DIALOGUE_FORMAT },
    raw: true,
    signal,
  });
  const cost = res.headers.get('character-cost');
  return { blob: await res.blob(), characters: cost === null ? null : Number(cost) };
}
