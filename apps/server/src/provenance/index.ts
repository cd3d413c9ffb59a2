/** Provenance: what says a file came from this server. So far the C2PA manifest (signing and reading). */
export { loadOrCreateSigner, signerAnchorPem, type C2paSigner, type SignerOptions } from './c2pa-keys.ts';
export { signAudio, TRAINED_ALGORITHMIC_MEDIA, SYNTHESIS_ASSERTION, type C2paClaim, type VoiceKind } from './c2pa-sign.ts';
export { readC2pa, readC2paInThread, type C2paReport, type ReadOptions } from './c2pa-read.ts';
/** Loads c2pa-rs (about 0.2 to 0.6 s, once per process): call at start so the first signed file does not wait. */
export { loadC2pa } from './c2pa-wasm.ts';
