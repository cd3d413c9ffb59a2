/**
 * The public check of a file (`POST /provenance/verify`): does it carry this server's watermark, its AIGC label
 * (and is the label this server's and this sound's), a valid C2PA manifest; and, for the account that made it, which
 * record it was. The watermark is looked for in the sound (the first 30 seconds), so a file whose metadata a
 * re-encode stripped is still recognised. A label vouches only when it is bound to the file: its integrity code
 * checks out and its record's hash of the sound is this file's (or this server's valid manifest, whose hash covers
 * label and sound, names the same record); a label copied onto other audio is `aigc_valid: false` and names no record.
 */
import { decodeAudio } from '@polyvox/speech';
import { parseAigc, readAigcValues, sniffContainer, type AigcRecord } from '@polyvox/speech/formats';
import { detectInThread, detectionsQueued } from '@polyvox/speech/watermark';
import { AppError } from '../platform/errors.js';
import { audioDigest, checkRecord } from './aigc.js';
import { readC2paInThread, type C2paReport } from './c2pa-read.ts';
import { GENERATOR } from './c2pa-signer.js';
import type { MarkRow } from './marks.js';
import type { Provenance } from './service.js';

/** What a watermark detector says about PCM (the speech package's detector, keyed by the server). */
export interface WatermarkVerdict {
  detected: boolean;
  score: number;
  falseAlarmRate: number;
  payload: number | null;
}
export type WatermarkDetector = (samples: Float32Array, sampleRate: number) => Promise<WatermarkVerdict>;

/** The rate files are decoded at for the check: the watermark lives below 4 kHz. */
const CHECK_RATE = 16_000;
/**
 * Seconds of a file the check decodes and searches (20 MB of wav is minutes; the mark repeats throughout, and the
 * payload needs about 15 s): enough for both, while the search stays a fraction of a second on the event loop.
 */
const CHECK_SECONDS = 30;

/**
 * The speech package's detector with this server's key, in its own thread (the search of a file without the mark is
 * about half a second of CPU, which the event loop must not spend). With `maxQueued`, a check that would wait behind
 * that many searches is refused with 429 RATE_LIMITED instead: for the public check, whose callers could otherwise
 * queue work without end.
 */
export function watermarkDetector(key: Uint8Array, opts: { maxQueued?: number } = {}): WatermarkDetector {
  return async (samples, sampleRate) => {
    if (opts.maxQueued !== undefined && detectionsQueued() >= opts.maxQueued)
      throw new AppError(
        'RATE_LIMITED',
        { seconds: BUSY_RETRY_SECONDS },
        { headers: { 'retry-after': String(BUSY_RETRY_SECONDS) } },
      );
    return detectInThread(samples, sampleRate, key, { payload: true });
  };
}

/** When a check refused for a full queue may come again: a few searches' time. */
const BUSY_RETRY_SECONDS = 5;
/** The public check's `maxQueued`: about four seconds of searches at most, whoever sends them. */
export const PUBLIC_CHECKS_QUEUED = 8;

export interface Verification {
  ai_generated: boolean;
  watermark: { detected: boolean; score: number; false_alarm_rate: number; payload_found: boolean };
  aigc: AigcRecord | null;
  aigc_valid: boolean;
  c2pa: {
    present: boolean;
    valid: boolean;
    validation_state: 'Invalid' | 'Valid' | 'Trusted';
    claim_generator: string | null;
  } | null;
  /**
   * The records the file is bound to (by its bound label or this server's valid manifest, else by its watermark
   * payload), before access is checked.
   */
  candidates: MarkRow[];
}

const MIME = { mp3: 'audio/mpeg', wav: 'audio/wav', opus: 'audio/ogg' } as const;

function c2paView(report: C2paReport): Verification['c2pa'] {
  if (!report.present) return null;
  const state = report.validationState === 'Trusted' || report.validationState === 'Valid' ? report.validationState : 'Invalid';
  return { present: true, valid: report.valid, validation_state: state, claim_generator: report.claimGenerator };
}

export async function verifyAudio(
  bytes: Buffer,
  deps: { provenance: Provenance; detect: WatermarkDetector | null },
): Promise<Verification> {
  const container = sniffContainer(bytes);
  const values = readAigcValues(bytes);
  // Exactly one field is a label; two that differ are no label anyone can rely on.
  const aigc = values.length === 1 ? parseAigc(values[0]!) : null;
  const report = container === 'mp3' || container === 'wav' ? await readC2paInThread(bytes, MIME[container]) : null;
  const c2pa = report ? c2paView(report) : null;
  let watermark: WatermarkVerdict = { detected: false, score: 0, falseAlarmRate: 1, payload: null };
  if (deps.detect) {
    const pcm = await decodeAudio(bytes, container === 'opus' ? 'ogg' : (container ?? 'bin'), CHECK_RATE, CHECK_SECONDS);
    watermark = await deps.detect(pcm.samples, pcm.sampleRate);
  }
  // This server's manifest, valid: its hash covers the whole file but the manifest, so the record it names is bound.
  const ours = c2pa?.valid === true && (c2pa.claim_generator ?? '').startsWith(GENERATOR.name);
  const manifested = ours && report?.produceId ? await deps.provenance.marks.byProduceId(report.produceId) : undefined;
  // The label's own record, when its integrity code checks out; it vouches only for the sound that record was made of.
  const labelled =
    aigc !== null && container !== null && checkRecord(deps.provenance.aigcKey, aigc)
      ? await deps.provenance.marks.byProduceId(aigc.ProduceID)
      : undefined;
  const aigcValid =
    labelled !== undefined &&
    container !== null &&
    (labelled.produce_id === manifested?.produce_id ||
      (labelled.audio_sha256 !== null && labelled.audio_sha256 === audioDigest(bytes, container)));
  let candidates: MarkRow[] = [];
  if (aigcValid) candidates = [labelled];
  else if (manifested) candidates = [manifested];
  // A payload names the content: every rendering of it (a cached replay carries the first one's) is a candidate.
  else if (watermark.payload !== null) candidates = await deps.provenance.marks.byPayload(watermark.payload, 50);
  return {
    ai_generated: watermark.detected || aigcValid || ours,
    watermark: {
      detected: watermark.detected,
      score: watermark.score,
      false_alarm_rate: watermark.falseAlarmRate,
      payload_found: watermark.payload !== null,
    },
    aigc,
    aigc_valid: aigcValid,
    c2pa,
    candidates,
  };
}

/** What in a file says this server made it, for a clone sample's record; null when nothing does. */
export async function syntheticSignals(
  bytes: Buffer,
  deps: { provenance: Provenance; detect: WatermarkDetector | null },
): Promise<object | null> {
  const v = await verifyAudio(bytes, deps);
  if (!v.ai_generated) return null;
  return {
    watermark: v.watermark.detected,
    score: v.watermark.score,
    aigc_valid: v.aigc_valid,
    c2pa_valid: v.c2pa?.valid ?? false,
    produce_id: v.candidates[0]?.produce_id ?? null,
  };
}
