import type { CharacterAlignment, Timings } from '@polyvox/speech';
import type { Synthesized } from '../types.js';

/**
 * A stream with timestamps as ElevenLabs sends it, as it is made: each piece of the (labelled) audio as a line of JSON
 * with the characters whose times are final by then (their sentences synthesized) and not yet sent, and a last line,
 * without audio, with any left (and SSML's marks). Times are from the start of the whole audio.
 */
export async function* timestampedLines(
  chunks: AsyncGenerator<Buffer, boolean>,
  latest: () => Timings | null,
): AsyncGenerator<Buffer, boolean> {
  const sent = { alignment: 0, normalized: 0 };
  const floor = { alignment: 0, normalized: 0 };
  const take = (a: CharacterAlignment, which: 'alignment' | 'normalized', until: number) => {
    const out = {
      characters: [] as string[],
      character_start_times_seconds: [] as number[],
      character_end_times_seconds: [] as number[],
    };
    let i = sent[which];
    for (; i < Math.min(until, a.characters.length); i++) {
      // Each line's times stay ordered after the last line's.
      const start = Math.max(floor[which], a.character_start_times_seconds[i]!);
      out.characters.push(a.characters[i]!);
      out.character_start_times_seconds.push(start);
      out.character_end_times_seconds.push(Math.max(start, a.character_end_times_seconds[i]!));
      floor[which] = start;
    }
    sent[which] = i;
    return out;
  };
  const line = (audio: Buffer, last: boolean): Buffer => {
    const t = latest();
    return Buffer.from(
      `${JSON.stringify({
        audio_base64: audio.toString('base64'),
        alignment: t ? take(t.alignment, 'alignment', last ? Infinity : (t.known?.characters ?? 0)) : null,
        normalized_alignment: t ? take(t.normalizedAlignment, 'normalized', last ? Infinity : (t.known?.normalized ?? 0)) : null,
        // SSML's <mark>s, once all the audio is placed: on the last line.
        ...(last && t?.marks ? { marks: t.marks } : {}),
      })}\n`,
    );
  };
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) {
        if (next.value !== true) return false;
        const t = latest();
        if (
          t &&
          (sent.alignment < t.alignment.characters.length || sent.normalized < t.normalizedAlignment.characters.length || t.marks)
        )
          yield line(Buffer.alloc(0), true);
        return true;
      }
      yield line(next.value, false);
    }
  } finally {
    await chunks.return(false);
  }
}

/**
 * A whole file with its timings as one JSON object, as ElevenLabs answers it: the audio in base64 and the alignments of
 * the text as sent and as read; `more` adds fields of Polyvox's own.
 */
export function timedJson(
  audio: Buffer,
  result: Synthesized,
  more: (t: Timings) => object = () => ({}),
): { contentType: string; body: Buffer } {
  const timings = result.alignment;
  if (!timings) throw new Error('the synthesis gave no timings');
  return {
    contentType: 'application/json',
    body: Buffer.from(
      JSON.stringify({
        audio_base64: audio.toString('base64'),
        alignment: timings.alignment,
        normalized_alignment: timings.normalizedAlignment,
        // SSML's <mark>s, each at its time (Polyvox's field; absent without marks).
        ...(timings.marks ? { marks: timings.marks } : {}),
        ...more(timings),
      }),
    ),
  };
}
