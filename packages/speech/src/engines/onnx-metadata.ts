/**
 * The `metadata_props` of an ONNX model (ModelProto field 14: key/value string pairs), read from the
 * file's protobuf without loading the model. The other top-level fields, the graph with its weights
 * among them, are skipped by their lengths: a model of hundreds of megabytes costs a few small reads.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export class OnnxReadError extends Error {}

const METADATA_PROPS = 14;

/** The model's metadata; throws OnnxReadError when the file is not a readable ONNX protobuf. */
export function readOnnxMetadata(file: string): Record<string, string> {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(20);
    const out: Record<string, string> = {};
    let pos = 0;
    let fields = 0;
    while (pos < size) {
      const n = readSync(fd, head, 0, Math.min(head.length, size - pos), pos);
      let at = 0;
      const varint = (): number => {
        let v = 0;
        let mul = 1;
        for (;;) {
          if (at >= n) throw new OnnxReadError(`${file}: truncated protobuf`);
          const b = head[at++]!;
          v += (b & 0x7f) * mul;
          if (!(b & 0x80)) return v;
          mul *= 128;
          if (mul > 2 ** 63) throw new OnnxReadError(`${file}: not an ONNX model`);
        }
      };
      const tag = varint();
      const field = Math.floor(tag / 8);
      const wire = tag & 7;
      if (field === 0) throw new OnnxReadError(`${file}: not an ONNX model`);
      if (wire === 0) {
        varint();
        pos += at;
      } else if (wire === 1) pos += at + 8;
      else if (wire === 5) pos += at + 4;
      else if (wire === 2) {
        const len = varint();
        const start = pos + at;
        if (start + len > size) throw new OnnxReadError(`${file}: truncated or not an ONNX model`);
        if (field === METADATA_PROPS) {
          const entry = Buffer.alloc(len);
          readSync(fd, entry, 0, len, start);
          const [k, v] = stringEntry(entry, file);
          if (k !== undefined) out[k] = v ?? '';
        }
        pos = start + len;
      } else throw new OnnxReadError(`${file}: not an ONNX model`);
      fields++;
    }
    if (!fields) throw new OnnxReadError(`${file}: empty file`);
    return out;
  } finally {
    closeSync(fd);
  }
}

/** A StringStringEntryProto: key (1) and value (2). */
function stringEntry(b: Buffer, file: string): [string | undefined, string | undefined] {
  let at = 0;
  let key: string | undefined;
  let value: string | undefined;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (at >= b.length) throw new OnnxReadError(`${file}: bad metadata entry`);
      const x = b[at++]!;
      v += (x & 0x7f) * mul;
      if (!(x & 0x80)) return v;
      mul *= 128;
    }
  };
  while (at < b.length) {
    const tag = varint();
    if ((tag & 7) !== 2) throw new OnnxReadError(`${file}: bad metadata entry`);
    const len = varint();
    const s = b.subarray(at, at + len).toString('utf8');
    at += len;
    if (tag >> 3 === 1) key = s;
    else if (tag >> 3 === 2) value = s;
  }
  return [key, value];
}

/** A ModelProto's metadata entries, encoded: appended to a model's bytes they add to its metadata_props. */
export function encodeOnnxMetadata(meta: Record<string, string | number>): Buffer {
  const parts: Buffer[] = [];
  const varint = (v: number): Buffer => {
    const bytes: number[] = [];
    do {
      let x = v % 128;
      v = Math.floor(v / 128);
      if (v > 0) x |= 0x80;
      bytes.push(x);
    } while (v > 0);
    return Buffer.from(bytes);
  };
  const bytesField = (field: number, b: Buffer): Buffer => Buffer.concat([varint((field << 3) | 2), varint(b.length), b]);
  for (const [k, v] of Object.entries(meta)) {
    const entry = Buffer.concat([bytesField(1, Buffer.from(k, 'utf8')), bytesField(2, Buffer.from(String(v), 'utf8'))]);
    parts.push(bytesField(METADATA_PROPS, entry));
  }
  return Buffer.concat(parts);
}
