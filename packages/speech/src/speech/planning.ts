/**
 * A request's plan (pipeline/plan.ts) against the voice library. The server prepares a request (to validate and price
 * it), then synthesizes that same object: its plan is kept, so a long text is not normalized and segmented twice
 * before its first byte; a field changed since makes a new plan.
 */
import { SpeechError } from '../core/errors.ts';
import { makePlan, type Plan, type PlanContext, type SynthesisRequest } from '../pipeline/plan.ts';
import type { VoiceLibrary } from './library.ts';

/** The request's fields a plan is made of. */
const PLAN_FIELDS = [
  'text',
  'voiceId',
  'voice',
  'profile',
  'language',
  'format',
  'speed',
  'pitch',
  'reference',
  'checkLanguage',
  'aiLabel',
  'timings',
  'lexicon',
  'normalization',
  'markup',
] as const;

export class Planner {
  /** What makePlan looks voices up in. */
  readonly context: PlanContext;
  private readonly prepared = new WeakMap<SynthesisRequest, { plan: Plan; fields: unknown[] }>();

  constructor(
    private readonly library: VoiceLibrary,
    maxTextLength: number,
  ) {
    this.context = {
      findVoice: (id) => library.find(id),
      findLanguageVoice: (engine, language) => library.findLanguageVoice(engine, language),
      maxTextLength,
    };
  }

  /** The request's plan: the one made before for this object while its fields stay the same. */
  planOf(req: SynthesisRequest): Plan {
    const fields = PLAN_FIELDS.map((f) => req[f]);
    const kept = this.prepared.get(req);
    if (kept && kept.fields.every((v, i) => v === fields[i])) return kept.plan;
    const plan = makePlan(req, this.context);
    // Timings come from an engine's own word events, else from an eSpeak NG rendering of the language aligned to
    // the audio; a language eSpeak NG does not speak gets no made-up alignment.
    if (req.timings && !this.timeable(plan))
      throw new SpeechError('VALIDATION_FAILED', `voice_id: no timings for ${plan.voice.engine} voices in ${plan.language}`, {
        params: { field: 'voice_id', rule: 'a voice whose engine reports word timings, or a language eSpeak NG speaks' },
      });
    this.prepared.set(req, { plan, fields });
    return plan;
  }

  /** Whether a plan can have timings: its engine's own word times, or an eSpeak NG voice of its language to align. */
  timeable(plan: Plan): boolean {
    return this.library.timedEngine(plan.voice.engine) || !!this.library.referenceVoice(plan.language);
  }
}
