import type { CharacterTimes } from '../subtitles';

/** Base64 (a timed answer's `audio_base64`) as bytes. */
export function base64Bytes(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** One timed piece of POST /tts's JSON answers (a line of a timed stream, or the whole timed file). */
export interface TimedPiece {
  audio_base64: string;
  alignment?: CharacterTimes | null;
}

/**
 * The audio of a POST /tts answer, read by its content type: JSON (a whole file with its timings, or lines of JSON as
 * a timed stream sends them) gives the audio its pieces carry, in the audio type asked for; audio is taken as it is.
 */
export function audioOfAnswer(contentType: string, body: Uint8Array, audioType: string): { bytes: Uint8Array; type: string } {
  if (!/json/i.test(contentType)) return { bytes: body, type: contentType.split(';')[0]!.trim() || audioType };
  const pieces = new TextDecoder()
    .decode(body)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => base64Bytes((JSON.parse(line) as TimedPiece).audio_base64));
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return { bytes: out, type: audioType };
}
