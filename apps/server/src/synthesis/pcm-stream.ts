/**
 * The ElevenLabs formats' stream codecs (`@polyvox/speech/formats`) with Node Buffers in and out: resampling 16-bit
 * PCM to `pcm_<rate>`, G.711 companding for `ulaw_8000` / `alaw_8000`, and the WAV header of `wav_<rate>`. Each
 * Buffer is a view of the bytes the formats code wrote, not a copy.
 */
import { G711Encoder as G711, Pcm16Resampler, wavHeader as header, type G711Law } from '@polyvox/speech/formats';

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Streaming resampling of 16-bit mono PCM between two rates; chunks may split a sample, `end` flushes the filter. */
export class PcmResampler {
  private readonly resampler: Pcm16Resampler;
  constructor(from: number, to: number) {
    this.resampler = new Pcm16Resampler(from, to);
  }
  write(chunk: Buffer): Buffer {
    return asBuffer(this.resampler.write(chunk));
  }
  end(): Buffer {
    return asBuffer(this.resampler.end());
  }
}

/** G.711 bytes of a stream of 16-bit PCM, one per sample, no header. */
export class G711Encoder {
  private readonly encoder: G711;
  constructor(law: G711Law) {
    this.encoder = new G711(law);
  }
  write(chunk: Buffer): Buffer {
    return asBuffer(this.encoder.write(chunk));
  }
}

/** The 44-byte RIFF header of 16-bit mono PCM at `rate` holding `dataBytes` of samples. */
export const wavHeader = (rate: number, dataBytes: number): Buffer => asBuffer(header(rate, dataBytes));
