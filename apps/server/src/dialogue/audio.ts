import type { CharacterAlignment, Speech } from '@polyvox/speech';
import { PcmResampler, reshaped } from '../synthesis/output/pcm-stream.js';
import { DIALOGUE_RATE, type JoinedTurn, type VoiceSegment } from './turns.js';
import { encodeChunks } from '../speech/pcm-encoding.js';

/** An ElevenLabs `output_format` as the dialogue encodes it: its codec, rate and content type. */
export interface DialogueFormat {
  codec: 'mp3' | 'opus' | 'pcm' | 'wav' | 'ulaw' | 'alaw';
  rate: number;
  contentType: string;
  /** The platform's format the provenance record names. */
  format: 'mp3' | 'opus' | 'pcm' | 'wav';
}

const TYPES = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  pcm: 'audio/pcm',
  wav: 'audio/wav',
  ulaw: 'audio/basic',
  alaw: 'audio/x-alaw-basic',
} as const;

/** `codec_rate[_bitrate]` (validated by the route's schema against ElevenLabs' list). */
export function dialogueFormat(name: string): DialogueFormat {
  const [codec, rate] = name.split('_') as [DialogueFormat['codec'], string];
  const format = codec === 'ulaw' || codec === 'alaw' ? 'pcm' : codec;
  return { codec, rate: Number(rate), contentType: TYPES[codec], format };
}

/**
 * The joined turns' PCM encoded once, in the format asked for: mp3 and Ogg Opus at the platform's 24 kHz (as every
 * Polyvox mp3 and Opus; decoders read the rate from the stream), PCM, WAV and G.711 resampled to their rate. `stream`:
 * each turn's bytes leave as it is encoded (a WAV with its sizes unknown, as a streamed WAV is); otherwise one file.
 * mp3 and Opus are encoded on the speech package's encoder thread (`speech`), not the server's event loop.
 * `onTurn` hears each turn as its bytes are handed on.
 */
export async function* encodeTurns(
  turns: AsyncGenerator<JoinedTurn, boolean>,
  format: DialogueFormat,
  stream: boolean,
  speech: Pick<Speech, 'openPcmEncoder'>,
  onTurn: (turn: JoinedTurn) => void = () => {},
): AsyncGenerator<Buffer, boolean> {
  async function* pcm(): AsyncGenerator<Buffer, boolean> {
    try {
      for (;;) {
        const next = await turns.next();
        if (next.done) return next.value;
        onTurn(next.value);
        yield next.value.pcm;
      }
    } finally {
      await turns.return(false);
    }
  }
  const { codec } = format;
  if (codec !== 'mp3' && codec !== 'opus') {
    const resampler = format.rate === DIALOGUE_RATE ? null : new PcmResampler(DIALOGUE_RATE, format.rate);
    return yield* reshaped(pcm(), format.rate, resampler, codec, stream);
  }
  const chunks = pcm();
  try {
    return yield* encodeChunks(speech.openPcmEncoder(codec, DIALOGUE_RATE, !stream), chunks);
  } finally {
    await chunks.return(false);
  }
}

/** The turns' alignments joined (the inputs' texts one after another), or null without timings. */
export function joinedAlignment(parts: (CharacterAlignment | null)[]): CharacterAlignment | null {
  if (parts.some((p) => p === null)) return null;
  return {
    characters: parts.flatMap((p) => p!.characters),
    character_start_times_seconds: parts.flatMap((p) => p!.character_start_times_seconds),
    character_end_times_seconds: parts.flatMap((p) => p!.character_end_times_seconds),
  };
}

/**
 * The timestamped stream as ElevenLabs sends it: one line of JSON per piece of the (labelled) audio with the turns whose
 * audio has been handed on by then and not yet sent: their alignments and their `voice_segments` (every line has the
 * field, empty when no turn came with it).
 */
export async function* dialogueLines(
  chunks: AsyncGenerator<Buffer, boolean>,
  known: JoinedTurn[],
): AsyncGenerator<Buffer, boolean> {
  let sent = 0;
  const line = (audio: Buffer): Buffer => {
    const fresh = known.slice(sent);
    sent = known.length;
    return Buffer.from(
      `${JSON.stringify({
        audio_base64: audio.toString('base64'),
        alignment: fresh.length ? joinedAlignment(fresh.map((t) => t.alignment)) : null,
        normalized_alignment: fresh.length ? joinedAlignment(fresh.map((t) => t.normalized)) : null,
        voice_segments: fresh.map((t): VoiceSegment => t.segment),
      })}\n`,
    );
  };
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) {
        if (next.value !== true) return false;
        if (sent < known.length) yield line(Buffer.alloc(0));
        return true;
      }
      yield line(next.value);
    }
  } finally {
    await chunks.return(false);
  }
}
