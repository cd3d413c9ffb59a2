/**
 * `npx tsx bench/run.ts --only voiceprint`: the protected-voice check's false accepts and false rejects. Genuine pairs
 * are two recordings of one speaker (different sentences; a different channel or codec); impostor pairs are two
 * speakers. Human speakers from `fixtures/speech/` (public-domain recordings), synthetic speakers from the built-in
 * engines' English voices, each reading three different texts. Each recording is measured as an upload is
 * (`measurePcm`, whose voiceprint the check compares); at the threshold in force (`PROTECTED_VOICE_THRESHOLD`), a
 * genuine pair above it is a false reject and an impostor pair at or under it a false accept.
 */
import path from 'node:path';
import { createSpeech, decodeToPcm, measurePcm, voiceprintDistance } from '@polyvox/speech';
import { decodeWav } from '@polyvox/speech/formats';
import { PROTECTED_VOICE_THRESHOLD } from '../apps/server/src/protected-voices/threshold.ts';
import type { BenchRow } from './stats.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/speech');
const RATE = 16_000;
/** Three recordings per synthetic speaker, each two sentences (over 10 s, as a clone sample must be). */
const TEXTS = [
  'The old lighthouse keeper climbed the stairs every evening to light the lamp before the ships came in from the sea. Nobody in the village remembered a night when the light had failed.',
  'Our quarterly report shows steady growth in every region, and we expect the new product line to launch next spring. The board will meet again in June to review the figures.',
  'Please remember to water the plants on the balcony while I am away, and feed the cat twice a day at the usual times. The spare key is under the blue flower pot by the door.',
];
const SYNTHETIC = [
  'flite:slt',
  'flite:awb',
  'flite:rms',
  'flite:kal16',
  'gnuspeech:male',
  'gnuspeech:female',
  'espeak:en-us',
  'espeak:en-us+f3',
  'espeak:en-us+m3',
  'espeak:en-gb',
  'espeak:en-gb+f2',
  'espeak:en-us+klatt4',
];

interface Recording {
  speaker: string;
  kind: 'human' | 'synthetic';
  name: string;
  print: number[];
}

async function human(): Promise<Recording[]> {
  const out: Recording[] = [];
  const take = async (speaker: string, file: string, from = 0, to = Infinity, name = file) => {
    const pcm = await decodeToPcm(path.join(FIXTURES, file), RATE);
    const s = pcm.samples.subarray(Math.round(from * RATE), Math.min(pcm.samples.length, Math.round(to * RATE)));
    out.push({ speaker, kind: 'human', name, print: measurePcm(s, RATE).voiceprint ?? [] });
  };
  // The LJ clips joined two by two into recordings of 11 to 14 s (a clone sample lasts 10 s at least).
  for (const [a, b] of [
    [1, 2],
    [3, 8],
    [4, 5],
    [6, 7],
  ] as const) {
    const x = (await decodeToPcm(path.join(FIXTURES, `LJ001-000${a}.wav`), RATE)).samples;
    const y = (await decodeToPcm(path.join(FIXTURES, `LJ001-000${b}.wav`), RATE)).samples;
    const joined = new Float32Array(x.length + y.length);
    joined.set(x);
    joined.set(y, x.length);
    out.push({ speaker: 'lj', kind: 'human', name: `LJ001-000${a}+000${b}`, print: measurePcm(joined, RATE).voiceprint ?? [] });
  }
  await take('lj', 'LJ-watermarked-v1.wav', 0, Infinity, 'LJ-watermarked-v1.wav (8 kHz)');
  await take('jfk', 'jfk.wav', 0, 5.5, 'jfk.wav 0–5.5 s');
  await take('jfk', 'jfk.wav', 5.5, 11, 'jfk.wav 5.5–11 s');
  await take('jfk', 'jfk.mp3', 0, Infinity, 'jfk.mp3');
  return out;
}

async function synthetic(): Promise<Recording[]> {
  const speech = await createSpeech({ cache: false, poolSize: 1 });
  const out: Recording[] = [];
  try {
    for (const voiceId of SYNTHETIC) {
      if (!speech.getVoice(voiceId)) continue;
      for (const [i, text] of TEXTS.entries()) {
        const file = decodeWav((await speech.synthesize({ text, voiceId, format: 'wav' })).audio);
        const print = measurePcm(file.samples, file.sampleRate).voiceprint ?? [];
        out.push({ speaker: voiceId, kind: 'synthetic', name: `${voiceId} #${i + 1}`, print });
      }
    }
  } finally {
    await speech.close();
  }
  return out;
}

interface Pair {
  genuine: boolean;
  kind: 'human' | 'synthetic' | 'mixed';
  distance: number;
  names: [string, string];
}

function pairs(recs: Recording[]): Pair[] {
  const out: Pair[] = [];
  for (let i = 0; i < recs.length; i++)
    for (let j = i + 1; j < recs.length; j++) {
      const a = recs[i]!;
      const b = recs[j]!;
      const kind = a.kind === b.kind ? a.kind : 'mixed';
      out.push({
        genuine: a.speaker === b.speaker,
        kind,
        distance: voiceprintDistance(a.print, b.print),
        names: [a.name, b.name],
      });
    }
  return out;
}

const pct = (n: number, d: number) => (d ? (100 * n) / d : 0);

/** False accepts and rejects at a threshold, per kind of pair. */
export function rates(all: Pair[], threshold: number, kind?: Pair['kind']) {
  const ps = kind ? all.filter((p) => p.kind === kind || (!kind && true)) : all;
  const genuine = ps.filter((p) => p.genuine);
  const impostor = ps.filter((p) => !p.genuine);
  const fr = genuine.filter((p) => p.distance > threshold).length;
  const fa = impostor.filter((p) => p.distance <= threshold).length;
  return {
    genuine: genuine.length,
    impostor: impostor.length,
    fr,
    fa,
    frr: pct(fr, genuine.length),
    far: pct(fa, impostor.length),
  };
}

export async function voiceprintRows(): Promise<BenchRow[]> {
  const recs = [...(await human()), ...(await synthetic())];
  const all = pairs(recs);
  if (process.env.VOICEPRINT_DUMP)
    for (const p of [...all].sort((a, b) => a.distance - b.distance))
      console.log(`${p.genuine ? 'G' : 'I'} ${p.kind.padEnd(9)} ${p.distance.toFixed(3)} ${p.names.join(' | ')}`);
  const rows: BenchRow[] = [];
  const t = PROTECTED_VOICE_THRESHOLD;
  for (const kind of ['human', 'synthetic', 'mixed'] as const) {
    const r = rates(all, t, kind);
    rows.push({ metric: `${kind} pairs: false rejects at ${t} (${r.fr} of ${r.genuine} genuine)`, value: r.frr, unit: '%' });
    rows.push({ metric: `${kind} pairs: false accepts at ${t} (${r.fa} of ${r.impostor} impostor)`, value: r.far, unit: '%' });
  }
  // The equal-error point over all pairs, for the record: where the threshold would trade one for the other.
  const ds = [...new Set(all.map((p) => p.distance).filter(Number.isFinite))].sort((a, b) => a - b);
  let eer = { t: 0, gap: Infinity, frr: 0, far: 0 };
  for (const d of ds) {
    const r = rates(all, d);
    if (Math.abs(r.frr - r.far) < eer.gap) eer = { t: d, gap: Math.abs(r.frr - r.far), frr: r.frr, far: r.far };
  }
  rows.push({
    metric: `equal-error point over all pairs (threshold ${eer.t.toFixed(3)}): false rejects`,
    value: eer.frr,
    unit: '%',
  });
  rows.push({
    metric: `equal-error point over all pairs (threshold ${eer.t.toFixed(3)}): false accepts`,
    value: eer.far,
    unit: '%',
  });
  return rows;
}
