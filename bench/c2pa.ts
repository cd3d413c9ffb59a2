/**
 * `--only c2pa`: what a signed C2PA manifest costs a whole-file request. Loading c2pa-rs (wasm, once per process),
 * signing a ~6 s mp3 and a ~60 s wav made by the engines, and reading them back (validation included), each the median
 * of repeated runs after a warm-up; the ~6 s mp3's signing also as a share of its synthesis time.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSpeech } from '@polyvox/speech';
import { loadOrCreateSigner, readC2pa, signAudio, type C2paClaim } from '../apps/server/src/provenance/index.ts';
import { loadC2pa } from '../apps/server/src/provenance/c2pa-wasm.ts';
import { median, time } from './stats.js';

interface Row {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

const RUNS = 25;

// The median wall time says what a request pays on this (shared, often loaded) machine; the fastest run and the CPU
// time (this process's, median) say what the work itself costs.
const rows = (what: string, file: string, t: { wall: number[]; cpu: number[] }): Row[] => [
  { metric: `c2pa: ${what} ${file}, median`, value: median(t.wall), unit: 'ms' },
  { metric: `c2pa: ${what} ${file}, fastest`, value: Math.min(...t.wall), unit: 'ms' },
  { metric: `c2pa: ${what} ${file}, CPU time (median)`, value: median(t.cpu), unit: 'ms' },
];

async function timed<T>(fn: () => Promise<T>, into: { wall: number[]; cpu: number[] } | null): Promise<T> {
  const cpu = process.cpuUsage();
  const r = await time(fn);
  const used = process.cpuUsage(cpu);
  into?.wall.push(r.ms);
  into?.cpu.push((used.user + used.system) / 1000);
  return r.value;
}
const SENTENCE = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';

export async function c2paRows(): Promise<Row[]> {
  const load = await time(() => loadC2pa());
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-c2pa-'));
  const speech = await createSpeech({ poolSize: 1, cache: false, warmup: false });
  try {
    const keys = await time(() => loadOrCreateSigner({ dataDir, organization: 'Bench' }));
    const signer = keys.value;
    const synthMs: number[] = [];
    let mp3: Buffer = Buffer.alloc(0);
    let mp3Sec = 0;
    for (let i = 0; i < 5; i++) {
      const r = await time(() => speech.synthesize({ text: SENTENCE, voiceId: 'espeak:en-us', format: 'mp3' }));
      if (i > 0) synthMs.push(r.ms);
      mp3 = r.value.audio;
      mp3Sec = r.value.durationSec;
    }
    // Sentences until the wav lasts about a minute (eSpeak speaks one in about 5 s).
    const long = Array.from({ length: 11 }, (_, i) => `${SENTENCE} Stop ${i + 1}.`).join(' ');
    const wavResult = await speech.synthesize({ text: long, voiceId: 'espeak:en-us', format: 'wav' });
    const wav = wavResult.audio;

    const claim: C2paClaim = {
      produceId: 'pv_bench',
      createdAt: new Date(),
      voiceId: 'espeak:en-us',
      voiceKind: 'library',
      engine: 'espeak-ng',
      generator: { name: 'Polyvox', version: '0.1.0' },
    };
    const measure = async (file: Uint8Array, format: 'mp3' | 'wav') => {
      const mime = format === 'mp3' ? 'audio/mpeg' : 'audio/wav';
      const sign = { wall: [] as number[], cpu: [] as number[] };
      const read = { wall: [] as number[], cpu: [] as number[] };
      for (let i = 0; i <= RUNS; i++) {
        // The first run warms the JIT and grows the wasm heap: not counted.
        const signed = await timed(() => signAudio(file, format, claim, signer), i ? sign : null);
        const report = await timed(() => readC2pa(signed, mime), i ? read : null);
        if (!report.valid) throw new Error(`bench: a signed ${format} did not validate: ${report.errors.join('; ')}`);
      }
      return { sign, read, bytes: file.length };
    };
    const m = await measure(mp3, 'mp3');
    const w = await measure(wav, 'wav');
    const label = (fmt: string, sec: number, bytes: number) => `${fmt} ${sec.toFixed(1)} s (${Math.round(bytes / 1024)} KiB)`;
    return [
      { metric: 'c2pa: load the wasm (once per process)', value: load.ms, unit: 'ms' },
      { metric: 'c2pa: make the root CA and signer (first start)', value: keys.ms, unit: 'ms' },
      ...rows('sign', label('mp3', mp3Sec, m.bytes), m.sign),
      ...rows('read and validate', label('mp3', mp3Sec, m.bytes), m.read),
      ...rows('sign', label('wav', wavResult.durationSec, w.bytes), w.sign),
      ...rows('read and validate', label('wav', wavResult.durationSec, w.bytes), w.read),
      { metric: `c2pa: mp3 synthesis of the same ${mp3Sec.toFixed(1)} s (espeak, median)`, value: median(synthMs), unit: 'ms' },
      { metric: 'c2pa: signing as a share of that synthesis', value: median(m.sign.wall) / median(synthMs), unit: 'ratio' },
    ];
  } finally {
    await speech.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
