/**
 * The provenance stage's signer of whole wav and mp3 files: the C2PA manifest (c2pa-sign.ts) with the server's key
 * and certificate (made once in DATA_DIR, or the operator's), naming the file's ProduceID, voice and engine.
 */
import { loadOrCreateSigner, type C2paSigner } from './c2pa-keys.ts';
import { signAudio } from './c2pa-sign.ts';
import { loadC2pa } from './c2pa-wasm.ts';
import type { ContentMark, FileSigner } from './service.js';

/** The generator every manifest names. */
export const GENERATOR = { name: 'Polyvox', version: '0.1.0' };

export class C2paFileSigner implements FileSigner {
  constructor(private readonly signer: C2paSigner) {}

  /** Loads (or makes) the key and certificate and the reference implementation, so the first file does not wait. */
  static async open(opts: {
    dataDir: string;
    certFile?: string;
    keyFile?: string;
    organization: string;
  }): Promise<C2paFileSigner> {
    const [signer] = await Promise.all([
      loadOrCreateSigner({
        dataDir: opts.dataDir,
        organization: opts.organization,
        ...(opts.certFile ? { certFile: opts.certFile } : {}),
        ...(opts.keyFile ? { keyFile: opts.keyFile } : {}),
      }),
      loadC2pa(),
    ]);
    return new C2paFileSigner(signer);
  }

  async sign(file: Buffer, container: 'wav' | 'mp3', mark: ContentMark): Promise<Buffer> {
    const signed = await signAudio(
      file,
      container,
      {
        produceId: mark.produceId,
        createdAt: mark.createdAt,
        voiceId: mark.origin.voiceId,
        voiceKind: mark.origin.voiceKind,
        engine: mark.origin.engine,
        generator: GENERATOR,
      },
      this.signer,
    );
    return Buffer.from(signed.buffer, signed.byteOffset, signed.byteLength);
  }
}
