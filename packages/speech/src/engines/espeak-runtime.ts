/**
 * The eSpeak NG runtime of one thread: loads the Emscripten module once, synthesizes with
 * word events, and reads the language and variant files it ships.
 */
import initEspeak from '@echogarden/espeak-ng-emscripten';
import type { EspeakLanguageData, EspeakVariantData } from '../catalogue/espeak-voices.ts';

const DATA_DIR = '/usr/share/espeak-ng-data';
export const ESPEAK_SAMPLE_RATE = 22050;

interface EspeakWorker {
  set_voice(name: string): number;
  set_rate(wpm: number): number;
  set_pitch(p: number): number;
  set_range(r: number): number;
  synthesize(text: string, cb: (samples: Int16Array, events: EspeakEvent[]) => void): void;
  list_voices(): { name: string; identifier: string; languages: { priority: number; name: string }[] }[];
}

interface EspeakEvent {
  type: string;
  audio_position: number;
  text_position: number;
  word_length: number;
  id?: string | number;
}

let loading: Promise<{ module: any; worker: EspeakWorker }> | undefined;

export function getEspeak(): Promise<{ module: any; worker: EspeakWorker }> {
  loading ??= (async () => {
    const module = await initEspeak();
    const worker = new module.eSpeakNGWorker() as EspeakWorker;
    return { module, worker };
  })();
  return loading;
}

export interface EspeakSynthOptions {
  /** An espeak voice name: `<identifier>` or `<identifier>+<variant>`. */
  voice: string;
  rate: number;
  pitch: number;
  range: number;
  ssml?: boolean;
  /** Each piece of audio as eSpeak makes it (see `EngineRequest.onAudio`). */
  onSamples?: (samples: Float32Array) => void;
}

export interface EspeakOutput {
  samples: Float32Array;
  words: { word: string; start: number; end: number }[];
  /** The phonemes eSpeak spoke, in IPA, as its phoneme events name them (what the pronunciation bench judges). */
  phonemes: string[];
}

export async function espeakSynthesize(text: string, opts: EspeakSynthOptions): Promise<EspeakOutput> {
  const { worker } = await getEspeak();
  if (worker.set_voice(opts.voice) !== 0) throw new Error(`espeak: unknown voice ${opts.voice}`);
  worker.set_rate(Math.round(clamp(opts.rate, 80, 450)));
  worker.set_pitch(Math.round(clamp(opts.pitch, 0, 100)));
  worker.set_range(Math.round(clamp(opts.range, 0, 100)));
  const input = opts.ssml ? text : escapeXml(text);
  const chunks: Float32Array[] = [];
  const starts: { pos: number; len: number; t: number }[] = [];
  const phonemes: string[] = [];
  worker.synthesize(input, (pcm, events) => {
    if (pcm && pcm.length) {
      const piece = new Float32Array(pcm.length);
      for (let i = 0; i < pcm.length; i++) piece[i] = pcm[i]! / 32768;
      chunks.push(piece);
      opts.onSamples?.(piece);
    }
    for (const e of events) {
      if (e.type === 'word') starts.push({ pos: e.text_position - 1, len: e.word_length, t: e.audio_position / 1000 });
      else if (e.type === 'phoneme' && e.id) phonemes.push(String(e.id));
    }
  });
  let n = 0;
  for (const c of chunks) n += c.length;
  const samples = new Float32Array(n);
  let o = 0;
  for (const c of chunks) {
    samples.set(c, o);
    o += c.length;
  }
  const total = n / ESPEAK_SAMPLE_RATE;
  // eSpeak's word_length can undercount a multi-character CJK word: a word runs to the next one.
  const words = starts.map((s, i) => ({
    word: input
      .slice(s.pos, Math.max(s.pos + s.len, starts[i + 1]?.pos ?? input.length))
      .replace(/[\s\p{P}]+$/u, '')
      .trim(),
    start: s.t,
    end: i + 1 < starts.length ? starts[i + 1]!.t : total,
  }));
  return { samples, words, phonemes };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export async function loadEspeakData(): Promise<{ languages: EspeakLanguageData[]; variants: EspeakVariantData[] }> {
  const { module, worker } = await getEspeak();
  const FS = module.FS;
  const read = (p: string): string => new TextDecoder('latin1').decode(FS.readFile(p));
  const languages = worker.list_voices().map((v): EspeakLanguageData => {
    const file = read(`${DATA_DIR}/lang/${v.identifier}`);
    const pitch = parsePitch(file);
    return {
      identifier: v.identifier,
      name: v.name,
      languages: [...v.languages].sort((a, b) => a.priority - b.priority).map((l) => l.name),
      ...(pitch ? { pitch } : {}),
    };
  });
  const variants = (FS.readdir(`${DATA_DIR}/voices/!v`) as string[])
    .filter((f) => !f.startsWith('.'))
    .sort()
    .map((id): EspeakVariantData => {
      const file = read(`${DATA_DIR}/voices/!v/${id}`);
      const name = /^name\s+(.+)$/m.exec(file)?.[1]?.trim() ?? id;
      const g = /^gender\s+(\w+)/m.exec(file)?.[1];
      const pitch = parsePitch(file);
      return {
        id,
        name,
        gender: g === 'female' ? 'female' : g === 'male' ? 'male' : 'neutral',
        ...(pitch ? { pitch } : {}),
        breath: /^breath\s/m.test(file),
        klatt: /^klatt\s/m.test(file),
      };
    });
  return { languages, variants };
}

function parsePitch(file: string): [number, number] | undefined {
  const m = /^pitch\s+(\d+)\s+(\d+)/m.exec(file);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}
