/**
 * A stream's label, written at its start: the first bytes are held until they hold the container's headers (an mp3
 * needs none: its tag goes first; a WAV its header up to the data chunk; Ogg Opus its two header pages), then they
 * leave labelled and the rest passes as it comes. A stream that never shows its headers ends with an error rather
 * than leave unlabelled.
 */
import { parseWavHeader, withAigc, type AigcRecord, type LabelledContainer } from '@polyvox/speech/formats';

/** More than any header the platform writes (a WAV header is 44 bytes, Ogg Opus' two pages well under 1 kB). */
const MAX_HEAD = 64 * 1024;

function oggPagesEnd(b: Buffer, pages: number): number | null {
  let at = 0;
  for (let i = 0; i < pages; i++) {
    if (at + 27 > b.length || b.toString('latin1', at, at + 4) !== 'OggS') return null;
    const n = b[at + 26]!;
    if (at + 27 + n > b.length) return null;
    let body = 0;
    for (let k = 0; k < n; k++) body += b[at + 27 + k]!;
    at += 27 + n + body;
    if (at > b.length) return null;
  }
  return at;
}

/** Where the headers end in the bytes so far, or null when more are needed. */
export function headEnd(container: LabelledContainer, b: Buffer): number | null {
  if (container === 'mp3') return 0;
  if (container === 'wav') return parseWavHeader(b)?.dataOffset ?? null;
  return oggPagesEnd(b, 2);
}

/**
 * Labels a stream: `record()` is asked for once, when the first bytes are there (so a stream that fails before any
 * audio leaves no record); with no container (raw samples travel with a header) the bytes pass unchanged.
 */
export class StreamLabeller {
  constructor(
    private readonly container: LabelledContainer | null,
    private readonly record: () => Promise<AigcRecord>,
  ) {}

  async *wrap<T>(chunks: AsyncGenerator<Buffer, T>): AsyncGenerator<Buffer, T> {
    let held: Buffer | null = Buffer.alloc(0);
    try {
      for (;;) {
        const next = await chunks.next();
        if (next.done) {
          if (held !== null && held.length > 0) throw new Error(`a ${this.container} stream ended before its headers`);
          return next.value;
        }
        if (held === null) {
          yield next.value;
          continue;
        }
        held = Buffer.concat([held, next.value]);
        const end = this.container ? headEnd(this.container, held) : 0;
        if (end === null) {
          if (held.length > MAX_HEAD) throw new Error(`no ${this.container} headers in the first ${MAX_HEAD} bytes`);
          continue;
        }
        const record = await this.record();
        const head = this.container ? Buffer.from(withAigc(held.subarray(0, end), this.container, record)) : Buffer.alloc(0);
        const out = Buffer.concat([head, held.subarray(end)]);
        held = null;
        yield out;
      }
    } finally {
      await chunks.return(undefined as T);
    }
  }
}
