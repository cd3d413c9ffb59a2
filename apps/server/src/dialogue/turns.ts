import { matchLoudness, type CharacterAlignment } from '@polyvox/speech';
import type { Charge, Prepared, SynthesisService, Synthesized } from '../synthesis/service.js';

type HeldWork = Awaited<ReturnType<SynthesisService['hold']>>;

/** The rate every turn is made at and joined at: the platform's PCM (24 kHz, 16-bit mono). */
export const DIALOGUE_RATE = 24000;
/** The silence heard between two turns of one speaker, and at a change of speaker (seconds). */
export const PAUSE_SAME_SPEAKER = 0.25;
export const PAUSE_NEW_SPEAKER = 0.5;
/** Each turn keeps this much of its own edges when its silence is trimmed (part of the pause heard). */
const EDGE_SEC = 0.03;

/** ElevenLabs' voice segment: where one input's voice speaks, in time and in the alignment's characters. */
export interface VoiceSegment {
  voice_id: string;
  start_time_seconds: number;
  end_time_seconds: number;
  /** The segment's first character in `alignment` (code points of the inputs' texts joined), and one past its last. */
  character_start_index: number;
  character_end_index: number;
  dialogue_input_index: number;
}

export interface DialogueTurn {
  voiceId: string;
  text: string;
  prepared: Prepared;
}

/** One turn as it joins the dialogue: the pause before it and its speech (PCM), its times moved to the dialogue's. */
export interface JoinedTurn {
  index: number;
  pcm: Buffer;
  segment: VoiceSegment;
  alignment: CharacterAlignment | null;
  normalized: CharacterAlignment | null;
  /** The turn's BS.1770 integrated loudness as its engine made it and as joined (LUFS). */
  loudness: { before: number; after: number };
  /** The watermark payload in its sound. */
  mark: number | null;
}

const round = (t: number) => Math.round(t * 1000) / 1000;

/** An alignment's times moved by `shift` seconds and held within [from, to]. */
function moved(a: CharacterAlignment, shift: number, from: number, to: number): CharacterAlignment {
  const at = (t: number) => round(Math.min(to, Math.max(from, t + shift)));
  return {
    characters: a.characters,
    character_start_times_seconds: a.character_start_times_seconds.map(at),
    character_end_times_seconds: a.character_end_times_seconds.map(at),
  };
}

/**
 * A dialogue's turns made one after another with one hold for the whole price: each turn is synthesized to PCM by its
 * own voice (the next one while the one before is sent), trimmed of its silent edges, brought to the platform's
 * loudness (BS.1770 integrated, as every single-voice file) and joined after a pause (shorter within a speaker's
 * run, longer at a change). Each turn's timings are moved to its place in the dialogue.
 */
export class DialogueTurns {
  /** The whole dialogue as one request for the hold, the records and the headers: its price is every turn's. */
  readonly whole: Prepared;
  private work: HeldWork | null = null;
  /** The quiet end of the turn joined last (seconds). */
  private quietEnd = 0;
  /** The credits and characters of the turns handed on so far (what a client that leaves has received). */
  private readonly delivered = { amount: 0, characters: 0 };

  constructor(
    private readonly synthesis: Pick<SynthesisService, 'hold' | 'render'>,
    private readonly turns: readonly DialogueTurn[],
    private readonly charge: Charge,
    private readonly reqId: string,
  ) {
    const [first] = turns as [DialogueTurn];
    this.whole = {
      ...first.prepared,
      characters: turns.reduce((n, t) => n + t.prepared.characters, 0),
      credits: turns.reduce((n, t) => n + t.prepared.credits, 0),
    };
  }

  /** The hold, once the first turn was asked for (the file routes settle it once the file is out). */
  get held(): HeldWork | null {
    return this.work;
  }

  /**
   * The turns, joined, as they are made. `settle`: the generator closes the hold itself (a stream): settled at its
   * end, or for the turns handed on when it stops early (a client that leaves pays for what it received), released
   * when none was. Otherwise the caller settles or releases `held` (a whole file, paid once it is out).
   */
  async *run(signal: AbortSignal, settle: boolean): AsyncGenerator<JoinedTurn, boolean> {
    if (signal.aborted) return false;
    const work = (this.work = await this.synthesis.hold(this.whole, this.charge, undefined, true));
    const render = (i: number) => {
      const p = this.synthesis.render(this.turns[i]!.prepared, this.charge, { work, reqId: this.reqId });
      p.catch(() => {});
      return p;
    };
    let complete = false;
    let failed = true;
    try {
      let next = render(0);
      let at = 0;
      let characters = 0;
      // `at`: the samples joined so far.
      for (let i = 0; i < this.turns.length; i++) {
        const { result } = await next;
        signal.throwIfAborted();
        if (i + 1 < this.turns.length) next = render(i + 1);
        const turn = this.joined(i, result, at, characters);
        at += turn.pcm.length / 2;
        characters = turn.segment.character_end_index;
        yield turn;
        const { prepared } = this.turns[i]!;
        this.delivered.amount += prepared.credits;
        this.delivered.characters += prepared.characters;
      }
      complete = true;
      failed = false;
      if (settle) await work.settle();
      return true;
    } catch (e) {
      // A caller that left stopped it: not a failure, the turns it received are paid.
      if (signal.aborted) failed = false;
      throw e;
    } finally {
      if (!complete && (settle || failed)) {
        const { amount, characters } = this.delivered;
        await (amount > 0 && !failed ? work.settle({ amount, characters }) : work.release('dialogue ended early'));
      }
      // A turn being made ahead stops (the hold is closed already: stopping it closes nothing).
      if (!complete) work.abort(new Error('dialogue ended'));
    }
  }

  private joined(index: number, result: Synthesized, at: number, characters: number): JoinedTurn {
    const { voiceId, text } = this.turns[index]!;
    const matched = matchLoudness(result.audio, DIALOGUE_RATE, undefined, EDGE_SEC);
    const previous = index > 0 ? this.turns[index - 1]!.voiceId : null;
    const pauseSec = previous === null ? 0 : previous === voiceId ? PAUSE_SAME_SPEAKER : PAUSE_NEW_SPEAKER;
    // The pause heard includes the quiet edges the turns keep (the one before's end, this one's start).
    const quiet = this.quietEnd + matched.quiet.start;
    this.quietEnd = matched.quiet.end;
    const silence = previous === null ? 0 : Math.max(0, Math.round((pauseSec - quiet) * DIALOGUE_RATE));
    const start = (at + silence) / DIALOGUE_RATE;
    const duration = matched.pcm.length / 2 / DIALOGUE_RATE;
    const end = start + duration;
    const shift = start - matched.trimmedSec;
    const timings = result.alignment;
    const count = timings ? timings.alignment.characters.length : Array.from(text).length;
    return {
      index,
      pcm: silence > 0 ? Buffer.concat([Buffer.alloc(silence * 2), matched.pcm]) : matched.pcm,
      segment: {
        voice_id: voiceId,
        start_time_seconds: round(start),
        end_time_seconds: round(end),
        character_start_index: characters,
        character_end_index: characters + count,
        dialogue_input_index: index,
      },
      alignment: timings ? moved(timings.alignment, shift, start, end) : null,
      normalized: timings ? moved(timings.normalizedAlignment, shift, start, end) : null,
      loudness: { before: matched.before, after: matched.after },
      mark: result.mark ?? null,
    };
  }
}
