import { voiceprintOfFile } from '@polyvox/speech';
import { PUBLIC_CHECKS_QUEUED, watermarkDetector } from '../provenance/verify.js';
import type { ReportRoutesDeps } from '../reports/routes.js';
import { ReportsService } from '../reports/service.js';
import type { AppContext } from './context.js';
import { accountAdminOf, clonedVoicesOf } from './operator-accounts.js';

/** Reports of misuse and protected voices: the account admin's disable, the library, provenance and storage. */
export function reportsOf(ctx: AppContext): ReportRoutesDeps {
  const accountAdmin = accountAdminOf(ctx);
  const reports = new ReportsService({
    db: ctx.db.kysely,
    storage: ctx.storage,
    mailer: ctx.mailer,
    audit: ctx.audit,
    protectedVoices: ctx.protectedVoices,
    disableAccount: (act, accountId, reason, after) => accountAdmin.disable(act, accountId, reason, after),
    officialVoice: (id) =>
      ctx.voices.get(id).then(
        () => true,
        () => false,
      ),
    officialTakenDown: () => ctx.withheldVoices.invalidate(),
    voiceprintOf: voiceprintOfFile,
  });
  return {
    perHour: ctx.config.REPORTS_PER_HOUR,
    reports,
    protectedVoices: ctx.protectedVoices,
    provenance: ctx.provenance,
    detect: watermarkDetector(ctx.provenance.watermarkKey, { maxQueued: PUBLIC_CHECKS_QUEUED }),
    limiter: ctx.limiter,
    storage: ctx.storage,
    publicUrl: ctx.config.PUBLIC_URL,
    tempFile: () => ctx.design.samples.tempFile(),
    voiceprintOf: voiceprintOfFile,
    sampleAudio: (act, accountId, sampleId, reason) => clonedVoicesOf(ctx).sample(act, accountId, sampleId, reason),
  };
}
