/**
 * A request's plan (pipeline/plan.ts) against the voice library. The server prepares a request (to validate and price
 * it), then synthesizes it (often a copy with its abort signal added): the plan is kept for a few seconds, found by
 * the request's text and the very same field values, so a text is not normalized, checked and segmented twice on the
 * server's event loop; a field changed since makes a new plan.
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

/** How long a plan is kept for the synthesis that follows its preparation, and how much is kept at most. */
const KEPT_MS = 10_000;
const KEPT_PLANS = 64;
const KEPT_CHARACTERS = 1_000_000;

interface Kept {
  plan: Plan;
  fields: unknown[];
  at: number;
}

export class Planner {
  /** What makePlan looks voices up in. */
  readonly context: PlanContext;
  /** Recent plans by their text, oldest first (a Map keeps insertion order). */
  private readonly kept = new Map<string, Kept>();
  private keptCharacters = 0;

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

  /** The request's plan: one made in the last seconds from the same field values (the same objects), or a new one. */
  planOf(req: SynthesisRequest, now = Date.now()): Plan {
    const fields = PLAN_FIELDS.map((f) => req[f]);
    const kept = this.kept.get(req.text);
    if (kept && now - kept.at < KEPT_MS && kept.fields.every((v, i) => v === fields[i])) return kept.plan;
    const plan = makePlan(req, this.context);
    // Timings come from an engine's own word events, else from an eSpeak NG rendering of the language aligned to
    // the audio; a language eSpeak NG does not speak gets no made-up alignment.
    if (req.timings && !this.timeable(plan))
      throw new SpeechError('VALIDATION_FAILED', `voice_id: no timings for ${plan.voice.engine} voices in ${plan.language}`, {
        params: { field: 'voice_id', rule: 'a voice whose engine reports word timings, or a language eSpeak NG speaks' },
      });
    this.keep(req.text, { plan, fields, at: now });
    return plan;
  }

  private keep(text: string, entry: Kept): void {
    this.forget(text);
    if (text.length > KEPT_CHARACTERS) return;
    this.kept.set(text, entry);
    this.keptCharacters += text.length;
    for (const [oldest, old] of this.kept) {
      if (this.kept.size <= KEPT_PLANS && this.keptCharacters <= KEPT_CHARACTERS && entry.at - old.at < KEPT_MS) break;
      this.forget(oldest);
    }
  }

  private forget(text: string): void {
    if (this.kept.delete(text)) this.keptCharacters -= text.length;
  }

  /** Whether a plan can have timings: its engine's own word times, or an eSpeak NG voice of its language to align. */
  timeable(plan: Plan): boolean {
    return this.library.timedEngine(plan.voice.engine) || !!this.library.referenceVoice(plan.language);
  }
}
