import { crc32 } from 'node:zlib';

/** A file to put in a zip: its name and its bytes as they come (never all held at once). */
export interface ZipEntry {
  name: string;
  /** Read once, when the entry's turn comes. */
  open(): Promise<AsyncIterable<Buffer>>;
  /** Its time (the DOS date and time in the header). */
  date: Date;
}

const LOCAL = 0x04034b50;
const DESCRIPTOR = 0x08074b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
/** Bit 3: sizes and CRC follow the data; bit 11: names are UTF-8. */
const FLAGS = 0x0008 | 0x0800;

function dosTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/**
 * A zip of stored entries (no compression: audio is compressed already), written as its entries are read: each
 * entry's CRC and size follow its data (a data descriptor), so no entry is held in memory. Sizes under 4 GiB, at most
 * 65,535 entries (no ZIP64); names are UTF-8.
 */
export async function* zipStream(entries: readonly ZipEntry[]): AsyncGenerator<Buffer> {
  if (entries.length > 0xffff) throw new RangeError('too many zip entries');
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const { time, date } = dosTime(entry.date);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(LOCAL, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(0, 8);
    header.writeUInt16LE(time, 10);
    header.writeUInt16LE(date, 12);
    header.writeUInt16LE(name.length, 26);
    yield Buffer.concat([header, name]);
    const start = offset;
    offset += header.length + name.length;
    let crc = 0;
    let size = 0;
    for await (const chunk of await entry.open()) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      yield chunk;
    }
    if (size > 0xffffffff || offset + size > 0xffffffff) throw new RangeError('zip larger than 4 GiB');
    offset += size;
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(DESCRIPTOR, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(size, 8);
    descriptor.writeUInt32LE(size, 12);
    yield descriptor;
    offset += descriptor.length;
    const record = Buffer.alloc(46);
    record.writeUInt32LE(CENTRAL, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(FLAGS, 8);
    record.writeUInt16LE(0, 10);
    record.writeUInt16LE(time, 12);
    record.writeUInt16LE(date, 14);
    record.writeUInt32LE(crc >>> 0, 16);
    record.writeUInt32LE(size, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(start, 42);
    central.push(record, name);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield directory;
  yield end;
}
