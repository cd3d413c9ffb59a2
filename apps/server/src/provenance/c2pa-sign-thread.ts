/**
 * The C2PA signing thread: embeds and signs each whole file's manifest (c2pa-rs hashing the file in WebAssembly, then
 * the claim signed with node:crypto) off the server's event loop. It keeps normal priority: every whole wav and mp3
 * waits for it.
 */
import { serveTasks } from '@polyvox/speech';
import type { C2paSigner } from './c2pa-keys.ts';
import { signAudio, type C2paClaim } from './c2pa-sign.ts';
import { loadC2pa } from './c2pa-wasm.ts';

export type C2paSignTask =
  { warm: true } | { warm?: false; file: Uint8Array; format: 'wav' | 'mp3'; claim: C2paClaim; signer: C2paSigner };

// One signer object per key, so coseSigner() parses the key and encodes the header once, not per file.
const signers = new Map<string, C2paSigner>();
function signerOf(s: C2paSigner): C2paSigner {
  const key = `${s.privateKeyPem}\n${s.certChainPem}`;
  let known = signers.get(key);
  if (!known) signers.set(key, (known = s));
  return known;
}

serveTasks(
  async (m: C2paSignTask): Promise<Uint8Array | null> => {
    if (m.warm) {
      await loadC2pa();
      return null;
    }
    return signAudio(m.file, m.format, m.claim, signerOf(m.signer));
  },
  { foreground: true },
);
