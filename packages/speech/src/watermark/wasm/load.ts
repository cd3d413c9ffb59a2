/**
 * Instantiates one of the watermark's WebAssembly modules (base64 in the .ts scripts/build-watermark-wasm.mjs
 * generates beside its C source). The callers keep one instance per thread, made on first use. The
 * modules' arrays are static: their memory never grows, so views made once stay valid.
 */

/** The two WebAssembly constructors used here (the package's types have no DOM library to declare them). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};

export interface WasmModule {
  exports: Record<string, unknown>;
  buffer: ArrayBuffer;
  /** The address of the array the module exports `name` to find. */
  at: (name: string) => number;
  f64: (name: string, length: number) => Float64Array;
}

export function instantiate(base64: string): WasmModule {
  const module = new WebAssembly.Module(Buffer.from(base64, 'base64'));
  const exports = new WebAssembly.Instance(module, {}).exports;
  const buffer = (exports.memory as { buffer: ArrayBuffer }).buffer;
  const at = (name: string) => (exports[name] as () => number)();
  return { exports, buffer, at, f64: (name, length) => new Float64Array(buffer, at(name), length) };
}
