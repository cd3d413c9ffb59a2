/**
 * The label's samples for a plan, at the rate of the file they go into: the rhythm cue, or the notice read by an
 * eSpeak NG voice of the text's language through the same pool and DSP stage as any sentence (loudness levelled).
 */
import { concatFloat32 } from '../dsp/pcm.ts';
import { resamplePolyphase } from '../formats/polyphase.ts';
import type { VoiceInfo } from '../core/types.ts';
import { noticeFor, rhythmCue, withGap, type AiLabel, type Notice } from '../pipeline/ai-label.ts';
import { synthesizeChunks, type ChunkContext } from './chunks.ts';
import { makePlan, type Plan } from '../pipeline/plan.ts';

/** Notices kept (voice × rate): a handful in practice; the map is emptied if it ever grows past this. */
const MAX_KEPT = 64;

export interface Labeller {
  /** The label of `plan` with its gap on the speech's side, at `rate`. */
  samples(plan: Plan & { aiLabel: AiLabel }, rate: number, signal?: AbortSignal): Promise<Float32Array>;
}

export function createLabeller(deps: {
  ctx: () => ChunkContext;
  findVoice(id: string): VoiceInfo | undefined;
  maxTextLength: number;
}): Labeller {
  // The same notice at the same rate is the same audio: read once per process. Shared by requests, so no request's
  // signal stops it (it is a couple of seconds of eSpeak, tens of milliseconds of work).
  const notices = new Map<string, Promise<Float32Array>>();

  async function read(notice: Notice, rate: number): Promise<Float32Array> {
    const voice = deps.findVoice(notice.voiceId);
    if (!voice) throw new Error(`the notice's voice ${notice.voiceId} is not installed`);
    const plan = makePlan(
      { text: notice.text, voice, language: notice.language, format: 'pcm', checkLanguage: false },
      { findVoice: deps.findVoice, maxTextLength: deps.maxTextLength },
    );
    const { pool, localEngines, remoteEngines } = deps.ctx();
    const parts: Float32Array[] = [];
    for await (const s of synthesizeChunks({ pool, localEngines, remoteEngines, sampleRate: rate }, plan))
      parts.push(s.sampleRate === rate ? s.samples : resamplePolyphase(s.samples, s.sampleRate, rate));
    return concatFloat32(parts);
  }

  function notice(n: Notice, rate: number): Promise<Float32Array> {
    const key = `${n.voiceId}\u0000${n.text}\u0000${rate}`;
    let kept = notices.get(key);
    if (!kept) {
      if (notices.size >= MAX_KEPT) notices.clear();
      kept = read(n, rate);
      notices.set(key, kept);
      // A failure is not kept: the next request tries again.
      kept.catch(() => notices.delete(key));
    }
    return kept;
  }

  return {
    async samples(plan, rate, signal) {
      const label = plan.aiLabel.kind === 'rhythm' ? rhythmCue(rate) : await notice(noticeFor(plan.language, plan.text), rate);
      signal?.throwIfAborted();
      return withGap(label, rate, plan.aiLabel.position);
    },
  };
}
