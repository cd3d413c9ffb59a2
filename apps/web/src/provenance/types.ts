/** The shapes of the provenance check, from the contract (types only: no zod in the bundle). */
import type { z } from 'zod';
import type { AigcKey, AigcRecord, ProvenanceRecord, ProvenanceVerifyResponse } from '@polyvox/contracts';
import { AIGC_KEYS } from '@polyvox/speech/formats';

export type { AigcKey };
export type Verification = z.infer<typeof ProvenanceVerifyResponse>;
export type Aigc = z.infer<typeof AigcRecord>;
export type ProducedRecord = z.infer<typeof ProvenanceRecord>;

/** The standard's keys in order, from the browser-safe formats entry (no zod in the bundle). */
export const AIGC_KEY_ORDER: readonly AigcKey[] = AIGC_KEYS;
