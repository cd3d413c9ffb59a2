import { createHmac } from 'node:crypto';

/**
 * The keys of provenance, each derived from the server's secret for its one use (HMAC-SHA256 with a label), so no
 * other part of the platform that uses the secret can be made to produce one of them: every process of a deployment
 * (API and workers share the secret) marks and checks alike.
 */
export interface ProvenanceKeys {
  /** Keys the integrity code (`ReservedCode1`) of each AIGC label. */
  aigc: Buffer;
  /** Keys the watermark in the sound (and the payload it carries). */
  watermark: Uint8Array;
}

export function provenanceKeys(secret: string): ProvenanceKeys {
  const derive = (label: string) => createHmac('sha256', secret).update(`polyvox provenance: ${label}`).digest();
  return { aigc: derive('aigc integrity v1'), watermark: new Uint8Array(derive('audio watermark v1')) };
}
