/**
 * Flite (WASI): its built-in English voices. Pitch by `int_f0_target_mean` (Hz), speed by
 * `duration_stretch` (rms ignores the F0 target: Sonic shifts it). Each run has a fresh instance of the compiled
 * module with a private temp folder, in a helper process, which prepares the next two (a synthesis and its phones run)
 * in idle time after each call: the instantiation, most of a run's time, is off a call's path.
 *
 * Word times are Flite's own: the synthesis prints its segments with their end times (`-psdur`), matched with the
 * phones of each word from a lexicon kept here (`phone-timing.ts`). A word not in it takes what Flite spoke between the
 * words around it, and is learnt so; only when two such words follow each other is the lexicon first filled by a quick
 * run of the 8 kHz diphone voice at a twentieth of the duration over the words not met before, separated by commas (a
 * pause between each word's phones): an instance of the module prepared ahead, a few ms. All this only when word
 * times are asked for (`EngineRequest.words`).
 */
import { decodeWav } from '../dsp/pcm.ts';
import { changeSpeedPitch } from '../dsp/sonic.ts';
import type { Engine, EngineRequest, ModelInfo, PcmChunk, VoiceInfo, WordTiming } from '../core/types.ts';
import { ChildHost } from './child-host.ts';
import { fitToAudio, textTokens, wordsFromPhones, type TimedPhone } from './phone-timing.ts';
import { totalSemitones, totalSpeed } from './pitch.ts';
import { QUALITY } from '../core/quality.ts';
import { FLITE_PHONES, madeWords } from '../text/engine-phones.ts';

export const FLITE_MODEL = 'flite';

const VOICES: {
  variant: string;
  name: string;
  gender: 'male' | 'female';
  languages: string[];
  pitchHz: number;
  stddev: number;
  description: string;
}[] = [
  {
    variant: 'slt',
    name: 'Sarah (Flite)',
    gender: 'female',
    languages: ['en-US', 'en'],
    pitchHz: 170,
    stddev: 25,
    description: 'US English female, clustergen statistical voice',
  },
  {
    variant: 'kal16',
    name: 'Kal (Flite, 16 kHz)',
    gender: 'male',
    languages: ['en-US', 'en'],
    pitchHz: 105,
    stddev: 14,
    description: 'US English male, diphone voice',
  },
  {
    variant: 'kal',
    name: 'Kal (Flite, 8 kHz)',
    gender: 'male',
    languages: ['en-US', 'en'],
    pitchHz: 105,
    stddev: 14,
    description: 'US English male, diphone voice at telephone quality',
  },
  {
    variant: 'awb',
    name: 'Alan (Flite)',
    gender: 'male',
    languages: ['en-GB', 'en'],
    pitchHz: 110,
    stddev: 18,
    description: 'Scottish English male, clustergen voice',
  },
  {
    variant: 'rms',
    name: 'Richard (Flite)',
    gender: 'male',
    languages: ['en-US', 'en'],
    pitchHz: 105,
    stddev: 15,
    description: 'US English male, clustergen voice',
  },
];

export class FliteEngine implements Engine {
  readonly id = 'flite';
  readonly capabilities = {
    quality: QUALITY.flite,
    languages: ['en-US', 'en-GB', 'en'],
    mixable: false,
    nativeCloning: false,
    ssml: false,
    wordTimings: true,
    nativePitch: true,
    nativeSpeed: true,
    // Faster than 2.5 Flite keeps its pauses and segments long: the DSP stage stretches the rest.
    speedRange: [0.25, 2.5] as const,
  };
  private readonly voices: VoiceInfo[] = VOICES.map((v) => ({
    id: `flite:${v.variant}`,
    name: v.name,
    gender: v.gender,
    languages: v.languages,
    model: FLITE_MODEL,
    engine: this.id,
    variant: v.variant,
    age: 'adult',
    profile: { pitchHz: v.pitchHz, range: v.stddev, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
    previewText: 'Hello! This is my voice. I can read your text aloud, clearly and naturally.',
    description: v.description,
  }));

  /** Runs of the phones made so far (the word times' own work: none for a sentence whose new words stand alone). */
  phonesRuns = 0;
  // Node 20's WASI can segfault (see flite-host.mjs): it runs in a helper process, retried once if that dies.
  private readonly host = new ChildHost(new URL('./flite-host.mjs', import.meta.url), ['--expose-gc', '--no-warnings']);

  listVoices(): VoiceInfo[] {
    return this.voices;
  }

  listModels(): ModelInfo[] {
    return [
      {
        id: FLITE_MODEL,
        name: 'Flite',
        engine: this.id,
        type: 'standard',
        languages: this.capabilities.languages,
        genders: ['male', 'female'],
        description: 'CMU Flite English voices: small and natural-sounding statistical parametric speech.',
        voiceCount: this.voices.length,
      },
    ];
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    const semis = totalSemitones(req);
    const f0 = req.voice.profile.pitchHz * Math.pow(2, semis / 12);
    const stddev = req.profile.range * Math.pow(2, semis / 12);
    const speed = totalSpeed(req);
    const nativeF0 = req.voice.variant !== 'rms';
    // Flite reads an argument that names an existing file as a file: pad the text with spaces.
    const args = ['-voice', req.voice.variant, '--setf', `duration_stretch=${(1 / speed).toFixed(4)}`];
    if (nativeF0)
      args.push('--setf', `int_f0_target_mean=${f0.toFixed(1)}`, '--setf', `int_f0_target_stddev=${stddev.toFixed(1)}`);
    const { text, lex, made } = withAddenda(sanitize(req.text));
    if (lex) args.push('-add_lex', ADDENDA_FILE);
    args.push('-psdur', ` ${text} `);
    const tokens = textTokens(text);
    const unknown = req.words
      ? [...new Set(tokens.map((t) => t.toLowerCase()).filter((t) => !lexicon.has(t) && !made.has(t)))]
      : [];
    const phones = unknown.length && needsPhonesRun(tokens, made) ? [...PHONE_RUN, ` ${unknown.join(', ')} `] : undefined;
    if (phones) this.phonesRuns++;
    const reply = await this.host.request({ args, ...(lex ? { lex } : {}), ...(phones ? { phones } : {}) }, true);
    const wav = reply.wav as Uint8Array;
    const { samples, sampleRate } = decodeWav(Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength));
    if (typeof reply.phones === 'string') learnPhones(unknown, reply.phones);
    const shifted = nativeF0 || Math.abs(semis) < 0.01 ? samples : await changeSpeedPitch(samples, sampleRate, 1, semis);
    if (!req.words) {
      yield { samples: shifted, sampleRate };
      return;
    }
    const words = fliteWords(String(reply.segments ?? ''), tokens, made, samples.length / sampleRate);
    yield { samples: shifted, sampleRate, words };
  }

  /** The phones Flite speaks for `text` (`-ps`, pauses left out) on a voice: what the pronunciation bench judges. */
  async phonesOf(text: string, variant: string): Promise<string[]> {
    const said = withAddenda(sanitize(text));
    const args = ['-voice', variant, ...(said.lex ? ['-add_lex', ADDENDA_FILE] : []), '-ps', ` ${said.text} `];
    const reply = await this.host.request({ args, ...(said.lex ? { lex: said.lex } : {}) }, true);
    return String(reply.segments ?? '')
      .split(/\s+/u)
      .filter((p) => p && p !== 'pau');
  }

  async close(): Promise<void> {
    await this.host.close();
  }
}

/** The phones run: the cheapest voice, at a twentieth of the duration, its phones printed and its audio dropped. */
const PHONE_RUN = ['-voice', 'kal', '--setf', 'duration_stretch=0.05', '-ps'];
/** Words (lower case) and their phones as Flite says them; emptied when full (a lookup table, not a store). */
const lexicon = new Map<string, string[]>();
const LEXICON_LIMIT = 50_000;

/** The phones run's output: one group of phones per word asked for, pauses between them; kept only if they agree. */
function learnPhones(asked: readonly string[], printed: string): void {
  const groups: string[][] = [[]];
  for (const p of printed.split(/\s+/u).filter(Boolean)) {
    if (p === 'pau') {
      if (groups.at(-1)!.length) groups.push([]);
    } else groups.at(-1)!.push(p);
  }
  if (!groups.at(-1)!.length) groups.pop();
  if (groups.length !== asked.length) return;
  asked.forEach((w, i) => remember(w, groups[i]!));
}

function remember(word: string, phones: string[]): void {
  if (lexicon.size >= LEXICON_LIMIT) lexicon.clear();
  lexicon.set(word, phones);
}

/**
 * Flite's printed segments (`name:end` in seconds, one line per utterance, each from 0) as timed phones, pauses left
 * out, brought to the audio's length (its wave ends within a few per cent of its last segment).
 */
export function fliteSegments(printed: string, durationSec: number): TimedPhone[] {
  const spoken: TimedPhone[] = [];
  let offset = 0;
  for (const line of printed.split('\n')) {
    let at = offset;
    for (const item of line.trim().split(/\s+/u)) {
      const colon = item.lastIndexOf(':');
      const end = offset + Number(item.slice(colon + 1));
      if (colon < 1 || !Number.isFinite(end)) continue;
      const name = item.slice(0, colon);
      if (name !== 'pau') spoken.push({ name, start: at, end });
      at = Math.max(at, end);
    }
    offset = at;
  }
  return fitToAudio(spoken, offset, durationSec);
}

/**
 * Whether the words not met before need the phones run: only when two of them follow each other. A word not met
 * before between words met before (or the sentence's ends) takes what Flite spoke between them, and is learnt so; a
 * word made for a rule's phones is known by them.
 */
function needsPhonesRun(tokens: readonly string[], made: ReadonlyMap<string, MadeWord>): boolean {
  const known = (t: string) => lexicon.has(t.toLowerCase()) || made.has(t.toLowerCase());
  return tokens.some((t, i) => i > 0 && !known(t) && !known(tokens[i - 1]!));
}

/**
 * Each word of the sentence with its phones from the lexicon (a word made for a rule's phones: by them, as the plan's
 * text has them); a word not in it takes what Flite spoke between the words around it (a run of them shares it by a
 * guess of their length), and one alone between known words is learnt so.
 */
function fliteWords(
  printed: string,
  tokens: readonly string[],
  made: ReadonlyMap<string, MadeWord>,
  durationSec: number,
): WordTiming[] {
  const words = tokens.map((word) => {
    const own = made.get(word.toLowerCase());
    return {
      word: own?.word ?? word,
      phones: own?.phones ?? lexicon.get(word.toLowerCase()) ?? null,
      weight: guessLength(word),
      made: own !== undefined,
    };
  });
  const spoken = fliteSegments(printed, durationSec);
  const timed = wordsFromPhones(spoken, words);
  if (timed.length !== words.length) return timed;
  words.forEach((w, i) => {
    if (w.phones || w.made || words[i - 1]?.phones === null || words[i + 1]?.phones === null) return;
    const said = spoken.filter((p) => p.start >= timed[i]!.start - 1e-6 && p.end <= timed[i]!.end + 1e-6);
    if (said.length)
      remember(
        w.word.toLowerCase(),
        said.map((p) => p.name),
      );
  });
  return timed;
}

/** A word's length in phones, guessed: about one a letter, four a digit (a number is said as words). */
function guessLength(word: string): number {
  let n = 0;
  for (const c of word) n += /\p{N}/u.test(c) ? 4 : /\p{L}/u.test(c) ? 0.9 : 0;
  return n;
}

/** The lexicon addenda file a call's rule phones are written to, in its private folder. */
const ADDENDA_FILE = 'addenda.txt';
/** A word made for a rule's phones: the phones as the plan wrote them, and as Flite prints them. */
interface MadeWord {
  word: string;
  phones: string[];
}

/**
 * A pronunciation rule's phones, `[[t_ah0_m_ey1_t_ow0]]` (text/engine-phones.ts), as a word of Flite's lexicon made for
 * this call: each distinct group becomes a word (`polyvoxa`, `polyvoxb` …, shaped so Flite reads it as a word, not
 * letters), and its phones a line of the addenda Flite adds to its lexicon (`-add_lex`). A group holding anything but
 * Flite's phones is left as the text it is.
 */
export function withAddenda(text: string): { text: string; lex: string; made: Map<string, MadeWord> } {
  const made = new Map<string, MadeWord>();
  const byPhones = new Map<string, string>();
  let lex = '';
  const next = madeWords(text);
  const out = text.replace(/\[\[([a-z0-9_]+)\]\]/g, (whole, group: string) => {
    const phones = group.split('_');
    if (!phones.every((p) => FLITE_PHONES.has(p))) return whole;
    let word = byPhones.get(group);
    if (!word) {
      word = next();
      byPhones.set(group, word);
      lex += `${word} : ${phones.join(' ')}\n`;
      // Flite prints an unstressed ah as its schwa, ax; stress digits not at all.
      made.set(word, { word: group, phones: phones.map((p) => (p === 'ah0' ? 'ax' : p.replace(/[01]$/, ''))) });
    }
    return word;
  });
  return { text: out, lex, made };
}

function sanitize(text: string): string {
  return text.replace(/\p{Cc}/gu, ' ');
}
