/**
 * A minimal ONNX (protobuf) writer: enough of ModelProto to build small graphs with metadata,
 * so the tests can make sherpa-onnx models themselves instead of downloading any.
 * Field numbers follow onnx/onnx.proto3.
 */

class Writer {
  private readonly parts: Buffer[] = [];

  private varint(v: number | bigint): void {
    let n = BigInt(v);
    if (n < 0n) n += 1n << 64n;
    const bytes: number[] = [];
    do {
      let b = Number(n & 0x7fn);
      n >>= 7n;
      if (n > 0n) b |= 0x80;
      bytes.push(b);
    } while (n > 0n);
    this.parts.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, v: number | bigint): this {
    this.tag(field, 0);
    this.varint(v);
    return this;
  }

  float(field: number, v: number): this {
    this.tag(field, 5);
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.parts.push(b);
    return this;
  }

  bytes(field: number, v: Buffer | string): this {
    const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
    this.tag(field, 2);
    this.varint(b.length);
    this.parts.push(b);
    return this;
  }

  message(field: number, w: Writer): this {
    return this.bytes(field, w.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export const DataType = { FLOAT: 1, INT32: 6, INT64: 7 } as const;

export interface Tensor {
  name: string;
  type: number;
  dims: number[];
  floats?: number[];
  ints?: (number | bigint)[];
}

export interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, number | number[] | Tensor>;
}

export interface ValueInfo {
  name: string;
  type: number;
  /** Numbers are fixed sizes, strings are symbolic dimensions. */
  shape: (number | string)[];
}

function tensor(t: Tensor): Writer {
  const w = new Writer();
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.type);
  w.bytes(8, t.name);
  if (t.type === DataType.FLOAT) {
    const b = Buffer.alloc((t.floats ?? []).length * 4);
    (t.floats ?? []).forEach((v, i) => b.writeFloatLE(v, i * 4));
    w.bytes(9, b);
  } else {
    const b = Buffer.alloc((t.ints ?? []).length * 8);
    (t.ints ?? []).forEach((v, i) => b.writeBigInt64LE(BigInt(v), i * 8));
    w.bytes(9, b);
  }
  return w;
}

function attribute(name: string, v: number | number[] | Tensor): Writer {
  const w = new Writer().bytes(1, name);
  if (typeof v === 'number') {
    if (Number.isInteger(v)) w.int(3, v).int(20, 2);
    else w.float(2, v).int(20, 1);
  } else if (Array.isArray(v)) {
    for (const x of v) w.int(8, x);
    w.int(20, 7);
  } else {
    w.message(5, tensor(v)).int(20, 4);
  }
  return w;
}

function valueInfo(v: ValueInfo): Writer {
  const shape = new Writer();
  for (const d of v.shape) shape.message(1, typeof d === 'number' ? new Writer().int(1, d) : new Writer().bytes(2, d));
  const tensorType = new Writer().int(1, v.type).message(2, shape);
  return new Writer().bytes(1, v.name).message(2, new Writer().message(1, tensorType));
}

export interface Model {
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  nodes: Node[];
  initializers?: Tensor[];
  metadata: Record<string, string | number>;
  opset?: number;
}

export function encodeModel(m: Model): Buffer {
  const graph = new Writer();
  m.nodes.forEach((n, i) => {
    const node = new Writer();
    for (const x of n.inputs) node.bytes(1, x);
    for (const x of n.outputs) node.bytes(2, x);
    node.bytes(3, `n${i}`).bytes(4, n.op);
    for (const [k, v] of Object.entries(n.attrs ?? {})) node.message(5, attribute(k, v));
    graph.message(1, node);
  });
  graph.bytes(2, 'tiny');
  for (const t of m.initializers ?? []) graph.message(5, tensor(t));
  for (const v of m.inputs) graph.message(11, valueInfo(v));
  for (const v of m.outputs) graph.message(12, valueInfo(v));
  const model = new Writer().int(1, 8).bytes(2, 'polyvox-tests');
  model.message(7, graph);
  model.message(8, new Writer().bytes(1, '').int(2, m.opset ?? 13));
  for (const [k, v] of Object.entries(m.metadata)) model.message(14, new Writer().bytes(1, k).bytes(2, String(v)));
  return model.finish();
}
