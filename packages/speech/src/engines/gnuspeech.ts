/**
 * GnuSpeech (WASM): articulatory synthesis of English. Pitch through the control model's
 * `pitch_offset` (semitones), speed through `tempo`; the voice files set vocal-tract length and
 * breathiness, so the profile's formant scale and breathiness are honoured here too.
 *
 * Word times are its own: with its debug flag it prints the phone string it speaks (words marked `/w`, chunks `/c`)
 * and, per chunk, its postures and the rules between them with their durations (ms, tempo applied).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import initGnuspeech from '@echogarden/gnuspeech-wasm/wasm/gnuspeech.js';
import { decodeWav } from '../dsp/pcm.ts';
import type { Engine, EngineRequest, Gender, ModelInfo, PcmChunk, VoiceInfo, WordTiming } from '../core/types.ts';
import { fitToAudio, textTokens, wordsFromPhones, type TimedPhone, type WordPhones } from './phone-timing.ts';
import { totalSemitones, totalSpeed } from './pitch.ts';
import { QUALITY } from '../core/quality.ts';
import { GNUSPEECH_PHONES, madeWords } from '../text/engine-phones.ts';

export const GNUSPEECH_MODEL = 'gnuspeech';
const DATA = '/data/en';
const OUTPUT_RATE = 22050;
const BASE_PITCH_OFFSET = -4;
const PAUSE_SECONDS = 0.2;

/** A letter or a digit: something an engine can say. */
export const hasWords = (text: string): boolean => /[\p{L}\p{N}]/u.test(text);

const VOICES: {
  variant: string;
  name: string;
  gender: Gender;
  age: 'adult' | 'child' | 'baby';
  pitchHz: number;
  tract: number;
}[] = [
  { variant: 'male', name: 'Gnu Male', gender: 'male', age: 'adult', pitchHz: 100, tract: 17.5 },
  { variant: 'female', name: 'Gnu Female', gender: 'female', age: 'adult', pitchHz: 200, tract: 15.0 },
  { variant: 'large_child', name: 'Gnu Large Child', gender: 'neutral', age: 'child', pitchHz: 231, tract: 12.5 },
  { variant: 'small_child', name: 'Gnu Small Child', gender: 'neutral', age: 'child', pitchHz: 267, tract: 10.0 },
  { variant: 'baby', name: 'Gnu Baby', gender: 'neutral', age: 'baby', pitchHz: 307, tract: 7.5 },
];

const require = createRequire(import.meta.url);
const packageDir = path.dirname(require.resolve('@echogarden/gnuspeech-wasm/package.json'));
const baseControlModel = readFileSync(path.join(packageDir, 'data/en/trm_control_model.txt'), 'utf8');

/** What the module printed during the current synthesis (calls are synchronous: one at a time). */
let printed: string[] = [];
let loading: Promise<any> | undefined;
const getModule = (): Promise<any> =>
  (loading ??= (initGnuspeech as (options: object) => Promise<any>)({
    print: (line: string) => printed.push(line),
    printErr: () => {},
  }).then((m: any) => {
    // Synthesize at 22.05 kHz rather than 44.1: half the work, and the pipeline resamples anyway.
    const trm = new TextDecoder().decode(m.FS.readFile(`${DATA}/trm.txt`) as Uint8Array);
    m.FS.writeFile(`${DATA}/trm.txt`, setting(trm, 'output_rate', OUTPUT_RATE.toFixed(1)));
    return m;
  }));

function cString(m: any, s: string): number {
  const bytes = new TextEncoder().encode(s);
  const ptr = m._malloc(bytes.length + 1) as number;
  m.HEAPU8.set(bytes, ptr);
  m.HEAPU8[ptr + bytes.length] = 0;
  return ptr;
}

function setting(file: string, key: string, value: string | number): string {
  return file.replace(new RegExp(`^${key}\\s*=.*$`, 'm'), `${key} = ${value}`);
}

export class GnuSpeechEngine implements Engine {
  readonly id = 'gnuspeech';
  readonly capabilities = {
    quality: QUALITY.gnuspeech,
    languages: ['en'],
    mixable: false,
    nativeCloning: false,
    ssml: false,
    wordTimings: true,
    nativePitch: true,
    nativeSpeed: true,
    // GnuSpeech's tempo stops having effect a little over 2.
    speedRange: [0.25, 2] as const,
  };
  private readonly voices: VoiceInfo[] = VOICES.map((v) => ({
    id: `gnuspeech:${v.variant}`,
    name: v.name,
    gender: v.gender,
    languages: ['en'],
    model: GNUSPEECH_MODEL,
    engine: this.id,
    variant: v.variant,
    age: v.age,
    profile: { pitchHz: v.pitchHz, range: 50, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
    previewText: 'Hello! This is my voice. I can read your text aloud, clearly and naturally.',
    description: `Articulatory model of a ${v.name.slice(4).toLowerCase()} vocal tract (${v.tract} cm)`,
  }));

  listVoices(): VoiceInfo[] {
    return this.voices;
  }

  listModels(): ModelInfo[] {
    return [
      {
        id: GNUSPEECH_MODEL,
        name: 'GnuSpeech',
        engine: this.id,
        type: 'standard',
        languages: ['en'],
        genders: ['male', 'female', 'neutral'],
        description: 'Articulatory speech synthesis: a simulated vocal tract, from baby to adult.',
        voiceCount: this.voices.length,
      },
    ];
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    // GnuSpeech fails on a sentence without a word ("...", "?"); such a sentence is a pause between the others.
    if (!hasWords(req.text)) {
      yield { samples: new Float32Array(Math.round(OUTPUT_RATE * PAUSE_SECONDS)), sampleRate: OUTPUT_RATE };
      return;
    }
    const { samples, sampleRate, lines } = await this.speak(req);
    yield {
      samples,
      sampleRate,
      ...(req.words ? { words: gnuspeechWords(lines, req.text, samples.length / sampleRate) } : {}),
    };
  }

  /** The postures GnuSpeech speaks for `text` on a voice, pauses left out: what the pronunciation bench judges. */
  async phonesOf(text: string, variant: string): Promise<string[]> {
    const voice = this.voices.find((v) => v.variant === variant) ?? this.voices[0]!;
    const { lines } = await this.speak({ text, voice, profile: voice.profile, speed: 1, pitch: 0 });
    return readPrint(lines).spoken.map((p) => p.name);
  }

  /** One synthesis: its audio and what the module printed (its phones and postures). */
  private async speak(req: EngineRequest): Promise<{ samples: Float32Array; sampleRate: number; lines: string[] }> {
    const m = await getModule();
    const semis = totalSemitones(req);
    const tempo = Math.max(0.25, Math.min(4, totalSpeed(req)));
    let control = setting(baseControlModel, 'voice_name', req.voice.variant);
    control = setting(control, 'tempo', tempo.toFixed(3));
    control = setting(control, 'pitch_offset', (BASE_PITCH_OFFSET + semis).toFixed(2));
    // Random intonation and drift make F0 differ from run to run; the same request must sound the same.
    control = setting(control, 'random_intonation', 0);
    control = setting(control, 'intonation_drift', 0);
    const own = userDictionary(req.text.replace(/\p{Cc}/gu, ' '));
    if (own.dictionary) m.FS.writeFile(`${DATA}/${USER_DICTIONARY}`, own.dictionary);
    control = setting(control, 'dictionary_1_file', own.dictionary ? USER_DICTIONARY : 'none');
    m.FS.writeFile(`${DATA}/trm_control_model.txt`, control);
    const text = cString(m, own.text);
    const out = cString(m, './out.wav');
    const dir = cString(m, DATA);
    const params = cString(m, './out-params.txt');
    printed = [];
    try {
      // The debug flag prints the phones and postures the word times come from.
      m._GnuSpeech_synthesizeToFile(text, out, dir, params, 1);
      const wav = Buffer.from(m.FS.readFile('./out.wav') as Uint8Array);
      m.FS.unlink('./out.wav');
      return { ...decodeWav(wav), lines: printed };
    } finally {
      printed = [];
      for (const p of [text, out, dir, params]) m._free(p);
    }
  }
}

/** The user dictionary a call's rule phones are written to (GnuSpeech looks a word up there first). */
const USER_DICTIONARY = 'polyvox-user.txt';

/**
 * A pronunciation rule's phones, `[[t_uh.'m_ar.t_uu]]` (text/engine-phones.ts), as a word of a user dictionary made
 * for this call: each distinct group becomes a word (`polyvoxa`, `polyvoxb` …) with those phones. A group holding
 * anything but GnuSpeech's phones is left as the text it is. No group: no dictionary (`dictionary` empty).
 */
export function userDictionary(text: string): { text: string; dictionary: string } {
  const byPhones = new Map<string, string>();
  // Its first line is the dictionary's version; then `word phones%part-of-speech`.
  let dictionary = '';
  const next = madeWords(text);
  const out = text.replace(/\[\[(["']?[a-z]+(?:[._]["']?[a-z]+)*)\]\]/g, (whole, group: string) => {
    if (!group.split(/[._]/).every((p) => GNUSPEECH_PHONES.has(p.replace(/^["']/, '')))) return whole;
    let word = byPhones.get(group);
    if (!word) {
      word = next();
      byPhones.set(group, word);
      dictionary += `${word} ${group}%a\n`;
    }
    return word;
  });
  return { text: out, dictionary: dictionary && `polyvox user dictionary\n${dictionary}` };
}

/** A chunk's phone string: the words (`/w`), each with the phones of its syllables; pauses (`#`, `^`) end a word. */
function chunkWords(phoneString: string): string[][] {
  const words: string[][] = [];
  let current: string[] | undefined;
  for (const token of phoneString.split(/\s+/u)) {
    if (token === '/w') {
      current = [];
      words.push(current);
    } else if (token === '#' || token === '^' || token === '/c') current = undefined;
    else if (!/^\/.?$|^\/\/$/u.test(token)) {
      // Markers (`/_` foot, `/*` marked foot, `/"` secondary stress, `/0`…) stripped; `.` and `_` part phones.
      const phones = token.replace(/\/./gu, '').split(/[_.]+/u).filter(Boolean);
      if (!current) {
        current = [];
        words.push(current);
      }
      current.push(...phones);
    }
  }
  return words.filter((w) => w.length);
}

/**
 * Word times from GnuSpeech's debug print: per chunk ("Speaking …"), its postures and the rules that join them; a
 * posture starts when the rule from it starts (postures inside a rule share its time evenly), chunks follow each other,
 * and all is brought to the audio's length. Words take the text's own spelling when their count agrees.
 */
export function gnuspeechWords(lines: readonly string[], text: string, durationSec: number): WordTiming[] {
  const { spoken, words, looked, offset } = readPrint(lines);
  const tokens = textTokens(text);
  const labels = tokens.length === words.length ? tokens : looked.length === words.length ? looked : undefined;
  const named: WordPhones[] = words.map((phones, i) => ({ word: labels?.[i] ?? '', phones }));
  return wordsFromPhones(fitToAudio(spoken, offset, durationSec), named).filter((w) => w.word);
}

/** GnuSpeech's debug print: its timed postures (by its own clock, `offset` seconds in all), its words' phones, the words it looked up. */
function readPrint(lines: readonly string[]): { spoken: TimedPhone[]; words: string[][]; looked: string[]; offset: number } {
  const spoken: TimedPhone[] = [];
  const words: string[][] = [];
  const looked: string[] = [];
  let offset = 0;
  let postures: string[] = [];
  let rules: { start: number; end: number; ms: number }[] = [];
  const endChunk = (): void => {
    if (!postures.length || !rules.length) return;
    const times = new Float64Array(postures.length + 1).fill(NaN);
    let t = 0;
    for (const r of rules) {
      for (let k = r.start; k < r.end && k < postures.length; k++) times[k] = t + (r.ms * (k - r.start)) / (r.end - r.start);
      t += r.ms;
    }
    for (let k = 0; k <= postures.length; k++) if (Number.isNaN(times[k]!)) times[k] = t;
    postures.forEach((p, k) => {
      const name = p.replace(/'$/u, '');
      if (name !== '#' && name !== '^')
        spoken.push({ name, start: offset + times[k]! / 1000, end: offset + times[k + 1]! / 1000 });
    });
    offset += t / 1000;
    postures = [];
    rules = [];
  };
  let section = '';
  for (const line of lines) {
    const speaking = /^Speaking "(.*)"$/u.exec(line);
    if (speaking) {
      endChunk();
      const chunk = speaking[1]!.replace(/^\s*\/c/u, '');
      const next = chunk.indexOf('/c');
      words.push(...chunkWords(next < 0 ? chunk : chunk.slice(0, next)));
      section = '';
      continue;
    }
    const word = /^lookup_word word: (.*)$/u.exec(line);
    if (word) looked.push(word[1]!.trim());
    if (/^Postures \d+/u.test(line)) section = 'postures';
    else if (/^Rules \d+/u.test(line)) section = 'rules';
    else if (section === 'postures') {
      const p = /^\d+\s+"([^"]*)"/u.exec(line);
      if (p) postures.push(p[1]!);
    } else if (section === 'rules') {
      const r = /^Number: \d+\s+start: (\d+)\s+end: (\d+)\s+duration ([\d.]+)/u.exec(line);
      if (r) rules.push({ start: Number(r[1]), end: Number(r[2]), ms: Number(r[3]) });
    }
  }
  endChunk();
  return { spoken, words, looked, offset };
}
