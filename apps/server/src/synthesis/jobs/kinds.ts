import type { Storage } from '../../platform/storage.js';
import type { Provenance } from '../../provenance/service.js';
import type { SynthesisService } from '../service.js';
import type { Synthesizer } from '../../speech/synthesizer.js';
import type { AnyJobDefinition } from './definition.js';
import type { HistoryRecorder } from '../../history/types.js';
import { handle, JobLayer, type JobProvider } from './layer.js';
import { synthesisJob, synthesisJobHandler } from './synthesis.js';
import { ttsJob, ttsJobHandler } from './tts.js';
import { studioConvertJob, type OwnHoldsContext, type StudioConvertPayload } from './studio.js';
import type { JobHandler } from './definition.js';

/** Every kind of job this release runs; the job layer starts only with a handler for each. */
export const JOB_KINDS: readonly AnyJobDefinition[] = [synthesisJob, ttsJob, studioConvertJob];

/**
 * The started job layer of this release: every kind with its handler, jobs going through `provider`. `engines` is
 * this process's own synthesizer (what a worker runs a queued interactive request on).
 */
export function startJobLayer(deps: {
  synthesis: SynthesisService;
  storage: Storage;
  provenance: Provenance;
  engines: Synthesizer;
  provider: JobProvider;
  history?: HistoryRecorder;
  /** A Studio conversion's handler (studio/convert.ts, above this layer: given by the composition). */
  studioConvert: JobHandler<StudioConvertPayload, OwnHoldsContext, void>;
}): JobLayer {
  return new JobLayer({
    kinds: JOB_KINDS,
    handlers: [
      handle(
        synthesisJob,
        synthesisJobHandler({
          synthesis: deps.synthesis,
          storage: deps.storage,
          provenance: deps.provenance,
          ...(deps.history ? { history: deps.history } : {}),
        }),
      ),
      handle(ttsJob, ttsJobHandler({ synthesizer: deps.engines })),
      handle(studioConvertJob, deps.studioConvert),
    ],
    provider: deps.provider,
  }).start();
}
