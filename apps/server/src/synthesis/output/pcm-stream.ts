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

/**
 * A stream's PCM as an ElevenLabs format asks: resampled to its rate, then as it is, companded to G.711
 * (`ulaw`, `alaw`), or in a WAV header (`wav`: streamed with the header's sizes unknown, as streamed WAV
 * is; whole, with them exact). Returning it returns the synthesis under it (which releases its hold).
 */
export async function* reshaped(
  chunks: AsyncGenerator<Buffer, boolean>,
  rate: number,
  resampler: PcmResampler | null,
  encoding: 'pcm' | 'wav' | 'ulaw' | 'alaw',
  stream: boolean,
): AsyncGenerator<Buffer, boolean> {
  const g711 = encoding === 'ulaw' || encoding === 'alaw' ? new G711Encoder(encoding) : null;
  const whole: Buffer[] | null = encoding === 'wav' && !stream ? [] : null;
  let headed = encoding !== 'wav' || !stream;
  const out = (pcm: Buffer): Buffer => {
    const body = g711 ? g711.write(pcm) : pcm;
    if (headed) return body;
    headed = true;
    return Buffer.concat([wavHeader(rate, 0xffffffff - 36), body]);
  };
  try {
    let next = await chunks.next();
    while (!next.done) {
      const pcm = resampler ? resampler.write(next.value) : next.value;
      if (whole) whole.push(pcm);
      else if (pcm.length > 0) {
        const bytes = out(pcm);
        if (bytes.length > 0) yield bytes;
      }
      next = await chunks.next();
    }
    if (next.value === true) {
      const tail = resampler ? resampler.end() : Buffer.alloc(0);
      if (whole) {
        const data = Buffer.concat([...whole, tail]);
        yield Buffer.concat([wavHeader(rate, data.length), data]);
      } else if (tail.length > 0 || !headed) {
        const bytes = out(tail);
        if (bytes.length > 0) yield bytes;
      }
    }
    return next.value;
  } finally {
    await chunks.return(false);
  }
}
