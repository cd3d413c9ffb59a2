import type { Verification } from '../provenance/verify.js';

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/** The operator's view of a checked file: the marks found, then every record it points to, with who made it. */
export async function describeProvenance(
  v: Verification,
  emailOf: (accountId: string) => Promise<string | null>,
): Promise<string[]> {
  const lines = [
    `Made by this server: ${yesNo(v.ai_generated)}`,
    `  watermark   ${v.watermark.detected ? `found (score ${v.watermark.score.toFixed(2)}, false-alarm rate ${v.watermark.false_alarm_rate.toExponential(1)})` : 'not found'}${v.watermark.payload_found ? ', payload read' : ''}`,
    `  AIGC label  ${v.aigc ? `${v.aigc.ProduceID} from ${v.aigc.ContentProducer}, integrity ${v.aigc_valid ? 'checks out' : 'FAILS (copied from other audio, edited, or not ours)'}` : 'none'}`,
    `  C2PA        ${v.c2pa ? `${v.c2pa.validation_state} (${v.c2pa.claim_generator ?? 'no generator'})` : 'none'}`,
  ];
  if (v.candidates.length === 0) lines.push('No record of this server matches the file.');
  for (const r of v.candidates) {
    const email = r.account_id ? await emailOf(r.account_id) : null;
    lines.push(
      `Record ${r.produce_id}`,
      `  made        ${r.created_at} as ${r.record_type} (${r.format})`,
      `  account     ${r.account_id ?? 'none (the platform)'}${email ? ` (${email})` : ''}${r.api_key_id ? `, API key ${r.api_key_id}` : ''}`,
      `  voice       ${r.voice_id} (${r.voice_kind}, ${r.engine})`,
    );
    if (r.request_id) lines.push(`  request     ${r.request_id}`);
    if (r.sample_id)
      lines.push(
        `  sample      ${r.sample_id}, SHA-256 ${r.sample_sha256 ?? 'unknown'}, consent given ${r.consent_at ?? 'unknown'}`,
      );
  }
  return lines;
}
