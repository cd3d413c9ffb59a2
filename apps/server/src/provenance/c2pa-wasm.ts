/**
 * The reference C2PA implementation (c2pa-rs, compiled to WebAssembly as @contentauth/c2pa-wasm), loaded once per
 * process and shared by the signer and the reader.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import init, { WasmBuilder, WasmReader } from '@contentauth/c2pa-wasm';

export { WasmBuilder, WasmReader };

/**
 * c2pa-rs settings for every builder and reader made here. The server works offline and must never be made to reach
 * out by a file it reads: an empty host allow-list blocks every request c2pa-rs could make (remote manifests, OCSP,
 * time stamps), and the two fetch switches say so explicitly as well.
 */
// The extended key usages C2PA accepts for a signer (c2pa-rs's own valid_eku_oids.cfg): emailProtection,
// documentSigning, timeStamping, OCSPSigning, Microsoft's C2PA signing and C2PA's signing EKU. Without a trust_config
// setting c2pa-rs accepts only the first three, and an operator's certificate with documentSigning or the C2PA EKU
// would read as invalid.
const SIGNER_EKUS = [
  '1.3.6.1.5.5.7.3.4',
  '1.3.6.1.5.5.7.3.36',
  '1.3.6.1.5.5.7.3.8',
  '1.3.6.1.5.5.7.3.9',
  '1.3.6.1.4.1.311.76.59.1.9',
  '1.3.6.1.4.1.62558.2.1',
].join('\n');

export function c2paContext(opts: { trustAnchorsPem?: string; verifyAfterSign?: boolean } = {}): string {
  return JSON.stringify({
    core: { allowed_network_hosts: [] },
    verify: { remote_manifest_fetch: false, ocsp_fetch: false, verify_after_sign: opts.verifyAfterSign ?? true },
    trust: { trust_config: SIGNER_EKUS, ...(opts.trustAnchorsPem ? { user_anchors: opts.trustAnchorsPem } : {}) },
  });
}

const BYTES = Symbol('polyvox.c2pa.bytes');

/** The part of the browser's Blob that the wasm glue uses (size, slice) over bytes already in memory. */
export interface ByteBlob {
  readonly size: number;
  slice(start?: number, end?: number): ByteBlob;
  readonly [BYTES]: Uint8Array;
}

export function byteBlob(bytes: Uint8Array): ByteBlob {
  return {
    size: bytes.length,
    slice: (start, end) => byteBlob(bytes.subarray(start, end)),
    [BYTES]: bytes,
  };
}

/**
 * The builder reads the asset to sign as a Blob through the browser's synchronous FileReaderSync, which Node lacks
 * (and Node's own Blob cannot be read synchronously). The stand-in reads our in-memory ByteBlobs and hands anything
 * else to a FileReaderSync the runtime may have.
 */
function installFileReaderSync(): void {
  const g = globalThis as { FileReaderSync?: new () => { readAsArrayBuffer(b: unknown): ArrayBuffer } };
  const Native = g.FileReaderSync;
  g.FileReaderSync = class {
    readAsArrayBuffer(blob: unknown): ArrayBuffer {
      const bytes = (blob as Partial<ByteBlob> | null)?.[BYTES];
      // A copy of exactly these bytes: a Buffer's own slice() is a view, whose .buffer may be a whole shared pool.
      if (bytes) return Uint8Array.prototype.slice.call(bytes).buffer as ArrayBuffer;
      if (Native) return new Native().readAsArrayBuffer(blob);
      throw new TypeError('c2pa: only in-memory byte blobs can be read here');
    }
  };
}

let loading: Promise<void> | undefined;

/** Whether this thread has loaded (or is loading) the module: the server's main thread never should. */
export const c2paLoadedHere = (): boolean => loading !== undefined;

/** Compiles and instantiates the module on first use (about 0.1 to 0.4 s); later calls share it. */
export function loadC2pa(): Promise<void> {
  loading ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
    const bytes = await readFile(file);
    installFileReaderSync();
    await init({ module_or_path: bytes });
  })().catch((e: unknown) => {
    // A failed load (a missing or damaged file) is tried again by the next caller rather than remembered.
    loading = undefined;
    throw e;
  });
  return loading;
}
