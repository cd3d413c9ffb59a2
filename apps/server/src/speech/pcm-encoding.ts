import type { PcmEncoder } from '@polyvox/speech';

/**
 * 16-bit PCM as it comes, through an encoder (the speech package's encoder thread): the encoded bytes as they are
 * made, and true once the PCM ended complete. PCM that ends otherwise (`false`) or a consumer that stops frees the
 * encoder; the PCM's own generator is the caller's to close.
 */
export async function* encodeChunks(
  encoder: PcmEncoder,
  pcm: AsyncGenerator<Uint8Array, boolean>,
): AsyncGenerator<Buffer, boolean> {
  let open = true;
  try {
    for (;;) {
      const next = await pcm.next();
      if (next.done) {
        if (next.value !== true) return false;
        open = false;
        const tail = await encoder.end();
        if (tail.length > 0) yield tail;
        return true;
      }
      const bytes = await encoder.write(next.value);
      if (bytes.length > 0) yield bytes;
    }
  } finally {
    if (open) encoder.free();
  }
}
