import type { StreamEncoder } from './encoder-host.ts';
import { int16ToFloat } from '../formats/pcm.ts';

/**
 * A stateful encoder of 16-bit mono PCM to mp3 or Ogg Opus on the encoder thread (`Speech.openPcmEncoder`): the bytes
 * each write completes, the rest at `end`.
 */
export interface PcmEncoder {
  write(pcm: Uint8Array): Promise<Buffer>;
  /** Flushes and frees it; `whole` encoders give the whole file here, checked (its header, a plausible size). */
  end(): Promise<Buffer>;
  /** Frees it without finishing the file. */
  free(): void;
}

/** A stream of the encoder thread (`EncoderHost.stream`) fed with 16-bit PCM. */
export function pcmEncoderOf(stream: StreamEncoder): PcmEncoder {
  return {
    async write(pcm) {
      return Buffer.concat(await stream.write(int16ToFloat(pcm)));
    },
    async end() {
      return Buffer.concat(await stream.end());
    },
    free() {
      stream.abort();
    },
  };
}
