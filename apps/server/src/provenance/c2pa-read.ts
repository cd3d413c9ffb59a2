/**
 * Reads and validates a file's C2PA manifest with the reference implementation (c2pa-rs as WebAssembly), offline.
 */
import { TaskThread } from '@polyvox/speech';
import { SYNTHESIS_ASSERTION } from './c2pa-sign.ts';
import { c2paContext, loadC2pa, WasmReader } from './c2pa-wasm.ts';

export interface C2paReport {
  /** The file carries a C2PA manifest store (valid or not, readable or damaged). */
  present: boolean;
  /** The signature and the hash binding validate (state Valid or Trusted); an unknown signer is still valid. */
  valid: boolean;
  /** c2pa-rs's validation state: Invalid, Valid or Trusted; '' when nothing was read. */
  validationState: string;
  /** The active manifest's claim generator, e.g. "Polyvox 0.1.0". */
  claimGenerator: string | null;
  voiceKind?: string;
  produceId?: string;
  voiceId?: string;
  engine?: string;
  /** The active manifest's actions with their digital source types. */
  actions?: { action: string; digitalSourceType?: string; when?: string }[];
  /** The signing certificate's subject (common name) and issuer (organization), as the reader gives them. */
  signer?: { commonName?: string; issuer?: string };
  /** Failure codes of the active manifest with c2pa-rs's explanations ("assertion.dataHash.mismatch: ..."); or why nothing was read. */
  errors: string[];
}

export interface ReadOptions {
  /** PEM roots to trust beyond none (c2pa-rs's user anchors): with the server's own root, its files read as Trusted. */
  trustAnchorsPem?: string;
}

const MIME_ALIASES: Record<string, string> = {
  'audio/wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/x-wav': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/mpeg': 'audio/mpeg',
  'audio/mp3': 'audio/mpeg',
};

// How c2pa-rs's errors (its Error variants, as the wasm build prints them) name a file with no manifest store in it,
// and one whose store was found but cannot be read (cut, or bytes changed in its boxes, claim or signature): that
// file did carry a manifest, and it fails.
const NOT_FOUND = /JumbfNotFound|ProvenanceMissing|ManifestNotFound/;
const DAMAGED =
  /JumbfParseError|JumbfCreationError|JumbfBoxNotFound|InvalidClaim|Claim(De|En)coding|Assertion[A-Za-z]*|Cose[A-Za-z]*/;

interface StatusEntry {
  code: string;
  explanation?: string;
}
interface ManifestJson {
  claim_generator_info?: { name?: string; version?: string }[];
  claim_generator?: string;
  assertions?: { label: string; data?: Record<string, unknown> }[];
  signature_info?: { common_name?: string; issuer?: string };
}
interface StoreJson {
  active_manifest?: string;
  manifests?: Record<string, ManifestJson>;
  validation_state?: string;
  validation_results?: { activeManifest?: { failure?: StatusEntry[] } };
  validation_status?: StatusEntry[];
}

/** Reads and validates with the reference reader; a file without a manifest is { present: false }. Never throws on bad input. */
export async function readC2pa(file: Uint8Array, mimeType: string, opts: ReadOptions = {}): Promise<C2paReport> {
  const format = MIME_ALIASES[mimeType.toLowerCase().split(';')[0]!.trim()] ?? mimeType;
  let store: StoreJson;
  try {
    await loadC2pa();
    const reader = await WasmReader.fromBytes(format, file, c2paContext({ trustAnchorsPem: opts.trustAnchorsPem }));
    try {
      store = JSON.parse(reader.json()) as StoreJson;
    } finally {
      reader.free();
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const damaged = !NOT_FOUND.test(message) && DAMAGED.test(message);
    return {
      present: damaged,
      valid: false,
      validationState: damaged ? 'Invalid' : '',
      claimGenerator: null,
      errors: NOT_FOUND.test(message) ? [] : [message],
    };
  }
  return report(store);
}

function report(store: StoreJson): C2paReport {
  const state = store.validation_state ?? '';
  const manifest = store.active_manifest ? store.manifests?.[store.active_manifest] : undefined;
  const failures = store.validation_results?.activeManifest?.failure ?? store.validation_status ?? [];
  const out: C2paReport = {
    present: true,
    valid: state === 'Valid' || state === 'Trusted',
    validationState: state,
    claimGenerator: null,
    errors: failures.map((f) => (f.explanation ? `${f.code}: ${f.explanation}` : f.code)),
  };
  if (!manifest) return out;
  const generator = manifest.claim_generator_info?.[0];
  out.claimGenerator = generator?.name
    ? [generator.name, generator.version].filter(Boolean).join(' ')
    : (manifest.claim_generator ?? null);
  if (manifest.signature_info) {
    out.signer = { commonName: manifest.signature_info.common_name, issuer: manifest.signature_info.issuer };
  }
  for (const assertion of manifest.assertions ?? []) {
    const data = assertion.data ?? {};
    if (assertion.label === SYNTHESIS_ASSERTION) {
      out.produceId = text(data.produceId);
      out.voiceKind = text(data.voiceKind);
      out.voiceId = text(data.voiceId);
      out.engine = text(data.engine);
    } else if (/^c2pa\.actions(\.v\d+)?$/.test(assertion.label) && Array.isArray(data.actions)) {
      out.actions = [
        ...(out.actions ?? []),
        ...(data.actions as Record<string, unknown>[]).map((a) => ({
          action: text(a.action) ?? '',
          digitalSourceType: text(a.digitalSourceType),
          when: text(a.when),
        })),
      ];
    }
  }
  return out;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export type C2paReadTask = { file: Uint8Array; mimeType: string; opts: ReadOptions };

const reader = new TaskThread<C2paReadTask, C2paReport>(new URL('./c2pa-read-entry.mjs', import.meta.url), 'C2PA reading');

/**
 * `readC2pa` in a thread of its own: validating a 20 MB file's hash binding is about 0.1 s of CPU, which the public
 * check must not take from the event loop. The file is copied there; the caller keeps its bytes.
 */
export function readC2paInThread(file: Uint8Array, mimeType: string, opts: ReadOptions = {}): Promise<C2paReport> {
  return reader.run({ file, mimeType, opts }, []);
}
