/**
 * The C2PA signing thread: embeds and signs each whole file's manifest (c2pa-rs hashing the file in WebAssembly, then
 * the claim signed with node:crypto) off the server's event loop. It keeps normal priority: every whole wav and mp3
 * waits for it.
 */
import { serveTasks } from '@polyvox/speech';
import { withAigc, type AigcRecord } from '@polyvox/speech/formats';
import { audioDigest } from './aigc.ts';
import type { C2paSigner } from './c2pa-keys.ts';
import { signAudio, type C2paClaim } from './c2pa-sign.ts';
import { loadC2pa } from './c2pa-wasm.ts';

/** With `record`, the file comes unlabelled: its AIGC field is written and its audio digest taken here too. */
export type C2paSignTask =
  | { warm: true }
  | { warm?: false; file: Uint8Array; format: 'wav' | 'mp3'; claim: C2paClaim; signer: C2paSigner; record?: AigcRecord };

/** A signed file, and (for a task with a record) the digest of its audio frames. */
export type C2paSigned = { file: Uint8Array; digest?: string };

// One signer object per key, so coseSigner() parses the key and encodes the header once, not per file.
const signers = new Map<string, C2paSigner>();
function signerOf(s: C2paSigner): C2paSigner {
  const key = `${s.privateKeyPem}\n${s.certChainPem}`;
  let known = signers.get(key);
  if (!known) signers.set(key, (known = s));
  return known;
}

serveTasks(
  async (m: C2paSignTask): Promise<C2paSigned | null> => {
    if (m.warm) {
      await loadC2pa();
      return null;
    }
    if (!m.record) return { file: await signAudio(m.file, m.format, m.claim, signerOf(m.signer)) };
    // Labelling copies the whole file and the digest hashes it: both here, off the event loop, with the signing.
    const labelled = withAigc(m.file, m.format, m.record);
    const digest = audioDigest(m.file, m.format);
    return { file: await signAudio(labelled, m.format, m.claim, signerOf(m.signer)), digest };
  },
  { foreground: true },
);
