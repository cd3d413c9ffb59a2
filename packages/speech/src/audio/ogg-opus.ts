/**
 * An Ogg Opus muxer (RFC 3533 pages, RFC 7845 headers) for packets from libopus. Each `pages()`
 * call closes a page with the packets so far, so a stream can send every packet as it is made.
 */

import { oggCrc } from '../formats/ogg.ts';

/** libopus' look-ahead (2.5 ms + 4 ms delay compensation) in 48 kHz samples, for every input rate. */
export const OPUS_PRE_SKIP = 312;

export class OggOpusWriter {
  private readonly serial = (Math.random() * 0x1_0000_0000) >>> 0;
  private seq = 0;
  private packets: { data: Uint8Array; samples48k: number }[] = [];
  /** Granule at the end of the last page closed: 48 kHz samples the decoder outputs, pre-skip included. */
  private granule = 0;

  constructor(private readonly inputRate: number) {}

  /** The two header pages: OpusHead (alone on the first page) and OpusTags. */
  headers(): Uint8Array[] {
    const head = new Uint8Array(19);
    const v = new DataView(head.buffer);
    head.set(new TextEncoder().encode('OpusHead'));
    head[8] = 1; // version
    head[9] = 1; // channels
    v.setUint16(10, OPUS_PRE_SKIP, true);
    v.setUint32(12, this.inputRate, true);
    v.setInt16(16, 0, true); // output gain
    head[18] = 0; // mapping family: mono/stereo
    const vendor = new TextEncoder().encode('polyvox');
    const tags = new Uint8Array(8 + 4 + vendor.length + 4);
    const tv = new DataView(tags.buffer);
    tags.set(new TextEncoder().encode('OpusTags'));
    tv.setUint32(8, vendor.length, true);
    tags.set(vendor, 12);
    tv.setUint32(12 + vendor.length, 0, true);
    return [this.page([head], 0, 0x02), this.page([tags], 0, 0)];
  }

  /** Queues one packet that decodes to `samples48k` samples at 48 kHz. */
  add(packet: Uint8Array, samples48k: number): void {
    this.packets.push({ data: packet, samples48k });
  }

  /**
   * Closes pages with the queued packets. On the last call, `endGranule` trims the padding of the
   * last frame, so the decoded length equals the input length.
   */
  pages(last = false, endGranule?: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    while (this.packets.length) {
      // At most 255 lacing values per page; a packet takes ⌊len/255⌋+1 of them.
      let n = 0;
      let lacing = 0;
      while (n < this.packets.length && lacing + Math.floor(this.packets[n]!.data.length / 255) + 1 <= 255) {
        lacing += Math.floor(this.packets[n]!.data.length / 255) + 1;
        n++;
      }
      const batch = this.packets.splice(0, Math.max(1, n));
      for (const p of batch) this.granule += p.samples48k;
      const final = last && this.packets.length === 0;
      const granule = final && endGranule !== undefined ? endGranule : this.granule;
      out.push(
        this.page(
          batch.map((p) => p.data),
          granule,
          final ? 0x04 : 0,
        ),
      );
    }
    return out;
  }

  private page(packets: Uint8Array[], granule: number, flags: number): Uint8Array {
    const lacing: number[] = [];
    for (const p of packets) {
      let len = p.length;
      while (len >= 255) {
        lacing.push(255);
        len -= 255;
      }
      lacing.push(len);
    }
    const body = packets.reduce((s, p) => s + p.length, 0);
    const page = new Uint8Array(27 + lacing.length + body);
    const v = new DataView(page.buffer);
    page.set([0x4f, 0x67, 0x67, 0x53]); // OggS
    page[4] = 0;
    page[5] = flags;
    v.setBigUint64(6, BigInt(granule), true);
    v.setUint32(14, this.serial, true);
    v.setUint32(18, this.seq++, true);
    page[26] = lacing.length;
    page.set(lacing, 27);
    let o = 27 + lacing.length;
    for (const p of packets) {
      page.set(p, o);
      o += p.length;
    }
    v.setUint32(22, oggCrc(page), true);
    return page;
  }
}
