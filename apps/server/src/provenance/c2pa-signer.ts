/**
 * The provenance stage's signer of whole wav and mp3 files: the C2PA manifest (c2pa-sign.ts) with the server's key
 * and certificate (made once in DATA_DIR, or the operator's), naming the file's ProduceID, voice and engine. Signing
 * (hashing the whole file and building the manifest in c2pa-rs's WebAssembly) runs in a thread of its own
 * (c2pa-sign-thread.ts), so the event loop keeps answering while files are signed.
 */
import { TaskThread } from '@polyvox/speech';
import { loadOrCreateSigner, type C2paSigner } from './c2pa-keys.ts';
import type { C2paSigned, C2paSignTask } from './c2pa-sign-thread.ts';
import type { ContentMark, FileSigner } from './service.js';

/** The generator every manifest names. */
export const GENERATOR = { name: 'Polyvox', version: '0.1.0' };

/**
 * Files larger than this (a Studio export) are signed in a thread of their own that ends with the file: c2pa-rs's
 * WebAssembly memory grows to hold the file it signs and never shrinks, so the long-lived thread stays sized for the
 * files most requests make.
 */
export const OWN_THREAD_BYTES = 16 * 1024 * 1024;

const ENTRY = new URL('./c2pa-sign-entry.mjs', import.meta.url);

export class C2paFileSigner implements FileSigner {
  private readonly thread = new TaskThread<C2paSignTask, C2paSigned | null>(ENTRY, 'C2PA signing');

  constructor(private readonly signer: C2paSigner) {}

  /** Loads (or makes) the key and certificate and starts the signing thread with c2pa-rs loaded, so the first file does not wait. */
  static async open(opts: {
    dataDir: string;
    certFile?: string;
    keyFile?: string;
    organization: string;
  }): Promise<C2paFileSigner> {
    const signer = new C2paFileSigner(
      await loadOrCreateSigner({
        dataDir: opts.dataDir,
        organization: opts.organization,
        ...(opts.certFile ? { certFile: opts.certFile } : {}),
        ...(opts.keyFile ? { keyFile: opts.keyFile } : {}),
      }),
    );
    await signer.thread.run({ warm: true }, []);
    return signer;
  }

  async sign(file: Buffer, container: 'wav' | 'mp3', mark: ContentMark): Promise<Buffer> {
    // The file is copied to the thread (the caller keeps its bytes); the signed file comes back as a copy of its own.
    const signed = (await this.run({ file, format: container, claim: claimOf(mark), signer: this.signer }))!;
    return toBuffer(signed.file);
  }

  async labelAndSign(file: Buffer, container: 'wav' | 'mp3', mark: ContentMark): Promise<{ file: Buffer; digest: string }> {
    const task = { file, format: container, claim: claimOf(mark), signer: this.signer, record: mark.record };
    const signed = (await this.run(task))!;
    return { file: toBuffer(signed.file), digest: signed.digest! };
  }

  /** Large files one at a time: signing one holds several copies of it (about nine times its size at the peak). */
  private large: Promise<unknown> = Promise.resolve();

  private async run(task: C2paSignTask & { file: Uint8Array }): Promise<C2paSigned | null> {
    if (task.file.byteLength <= OWN_THREAD_BYTES) return this.thread.run(task, []);
    const turn = this.large.then(async () => {
      const own = new TaskThread<C2paSignTask, C2paSigned | null>(ENTRY, 'C2PA signing (a large file)');
      try {
        return await own.run(task, []);
      } finally {
        await own.close();
      }
    });
    this.large = turn.catch(() => undefined);
    return turn;
  }

  /** Ends the signing thread (files being signed fail). */
  close(): Promise<void> {
    return this.thread.close();
  }
}

/** What a file's manifest says of it. */
function claimOf(mark: ContentMark) {
  return {
    produceId: mark.produceId,
    createdAt: mark.createdAt,
    voiceId: mark.origin.voiceId,
    voiceKind: mark.origin.voiceKind,
    engine: mark.origin.engine,
    generator: GENERATOR,
  };
}

const toBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
