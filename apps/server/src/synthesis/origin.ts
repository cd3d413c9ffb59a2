import { voiceKindOf, type ContentOrigin } from '../provenance/service.js';
import type { Charge, Prepared } from './types.js';

/** What the provenance record of a synthesis names: who paid, with which voice, on which engine, in which format. */
export function originOf(
  prepared: Prepared,
  charge: Pick<Charge, 'accountId' | 'apiKeyId' | 'recordType'> | null,
  result: { mark?: number | null },
  extra: { holdId?: string | null; requestId?: string | null; recordType?: string } = {},
): ContentOrigin {
  return {
    accountId: charge?.accountId ?? null,
    apiKeyId: charge?.apiKeyId ?? null,
    holdId: extra.holdId ?? null,
    requestId: extra.requestId ?? null,
    recordType: extra.recordType ?? charge?.recordType ?? 'tts',
    voiceId: prepared.voiceId ?? prepared.voice.id,
    voiceKind: voiceKindOf(prepared.origin.voiceType),
    engine: prepared.voice.engine,
    format: prepared.request.format ?? 'mp3',
    payload: result.mark ?? null,
    sampleId: prepared.origin.sampleId ?? null,
  };
}
