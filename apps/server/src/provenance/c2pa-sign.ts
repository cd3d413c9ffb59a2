/**
 * Embeds a signed C2PA manifest in a wav or mp3 file with the reference implementation (c2pa-rs as WebAssembly).
 *
 * c2pa-rs writes the manifest store where the format keeps it: in mp3 a GEOB frame (application/c2pa) added to the
 * ID3v2 tag at the start, the tag's other frames (the AIGC TXXX) kept; in wav a `C2PA` chunk after the others. The
 * hard binding (`c2pa.hash.data`) is a SHA-256 over the whole file but that frame or chunk, so it covers the audio
 * and every other metadata field.
 */
import { coseSigner } from './c2pa-cose.ts';
import type { C2paSigner } from './c2pa-keys.ts';
import { byteBlob, c2paContext, loadC2pa, WasmBuilder } from './c2pa-wasm.ts';

export type VoiceKind = 'library' | 'mix' | 'designed' | 'clone';

export interface C2paClaim {
  /** The platform's id for this piece of content (the AIGC field's ProduceID). */
  produceId: string;
  createdAt: Date;
  voiceId: string;
  voiceKind: VoiceKind;
  engine: string;
  generator: { name: string; version: string };
}

/** IPTC's digital source type for content a trained model made (C2PA §18.5, actions). */
export const TRAINED_ALGORITHMIC_MEDIA = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
/** This server's own assertion: what the file is, in fields a program can read back. */
export const SYNTHESIS_ASSERTION = 'com.polyvox.synthesis';

export const C2PA_MIME = { wav: 'audio/wav', mp3: 'audio/mpeg' } as const;

const VOICE_WORDS: Record<VoiceKind, string> = {
  library: 'a library voice',
  mix: 'a mix of library voices',
  designed: 'a designed voice',
  clone: 'a cloned voice',
};

export function manifestDefinition(claim: C2paClaim, format: 'wav' | 'mp3'): Record<string, unknown> {
  const when = claim.createdAt.toISOString();
  const agent = { name: claim.generator.name, version: claim.generator.version };
  return {
    claim_generator_info: [agent],
    title: `${claim.produceId}.${format}`,
    format: C2PA_MIME[format],
    assertions: [
      {
        label: 'c2pa.actions',
        created: true,
        data: {
          actions: [
            {
              action: 'c2pa.created',
              digitalSourceType: TRAINED_ALGORITHMIC_MEDIA,
              when,
              softwareAgent: agent,
              description: `Speech synthesized from text by ${claim.generator.name} with ${VOICE_WORDS[claim.voiceKind]}`,
            },
          ],
        },
      },
      {
        label: SYNTHESIS_ASSERTION,
        created: true,
        data: {
          produceId: claim.produceId,
          createdAt: when,
          voiceKind: claim.voiceKind,
          voiceId: claim.voiceId,
          engine: claim.engine,
        },
      },
    ],
  };
}

// Signing settings: as for reading (offline), and without the check c2pa-rs runs after signing (its own reader
// validating the store again): the tests and readC2pa validate what is written, and it would cost every request.
const SIGN_CONTEXT = c2paContext({ verifyAfterSign: false });

/** The same file with a signed manifest embedded (mp3: in its ID3v2 tag, keeping existing frames such as a TXXX; wav: a chunk). */
export async function signAudio(
  file: Uint8Array,
  format: 'wav' | 'mp3',
  claim: C2paClaim,
  signer: C2paSigner,
): Promise<Uint8Array> {
  const cose = coseSigner(signer);
  await loadC2pa();
  const builder = WasmBuilder.fromJson(JSON.stringify(manifestDefinition(claim, format)), SIGN_CONTEXT);
  try {
    const definition = {
      alg: cose.alg,
      reserveSize: cose.reserveSize,
      sign: async (claimBytes: Uint8Array<ArrayBuffer>) => cose.signClaim(claimBytes) as Uint8Array<ArrayBuffer>,
    };
    // The glue reads the source through Blob's size and slice only (c2pa-wasm.ts), which a ByteBlob gives.
    return await builder.sign(definition, [], C2PA_MIME[format], byteBlob(file) as unknown as Blob);
  } finally {
    builder.free();
  }
}
