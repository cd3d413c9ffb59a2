/**
 * `npx tsx bench/run.ts --only timings`: the generic aligner (DTW of cepstra against an eSpeak NG rendering) measured
 * against eSpeak NG's own word events on eSpeak voices it did not render (other accents, variants and speeds), and
 * what timings add to a whole synthesis's time per engine.
 */
import { createSpeech } from '@polyvox/speech';
import { decodeWav } from '../packages/speech/src/dsp/pcm.ts';
import { alignByReference } from '../packages/speech/src/pipeline/dtw-align.ts';
import { median, type BenchRow } from './stats.js';

type Row = BenchRow;

const TEXTS = [
  'The morning train left the station slowly, carrying travellers towards the distant mountains.',
  'Please remember to bring your passport, your tickets and a warm coat for the evening walk.',
  'Have you ever wondered why the sky turns orange and red just before the sun goes down?',
  'Our quarterly results show steady growth in every region, especially in the northern markets.',
];
const VOICES: [string, number][] = [
  ['espeak:en+f3', 1],
  ['espeak:en-gb-scotland+m3', 1.3],
  ['espeak:en-029+f1', 0.8],
  ['espeak:en-us+m3', 1.15],
];

export async function timingsRows(): Promise<Row[]> {
  const speech = await createSpeech({ cache: false });
  try {
    const rows: Row[] = [];
    const errors: number[] = [];
    for (const [id, speed] of VOICES)
      for (const text of TEXTS) {
        const produced = await speech.synthesize({ text, voiceId: id, format: 'wav', speed, checkLanguage: false });
        const reference = await speech.synthesize({ text, voiceId: 'espeak:en-us', format: 'wav' });
        const found = alignByReference(decodeWav(produced.audio), { ...decodeWav(reference.audio), words: reference.words });
        found.forEach((w, i) => errors.push(Math.abs(w.start - produced.words[i]!.start)));
      }
    const mae = (errors.reduce((a, b) => a + b, 0) / errors.length) * 1000;
    rows.push({
      metric: 'aligner word-start error vs eSpeak events (mean abs)',
      value: mae,
      unit: 'ms',
      target: '≤ 40',
      pass: mae <= 40,
    });
    rows.push({ metric: 'aligner word-start error vs eSpeak events (p95)', value: quantile95(errors) * 1000, unit: 'ms' });

    const text = `${TEXTS[0]} ${TEXTS[1]} ${TEXTS[2]}`;
    for (const voiceId of ['espeak:en-us', 'flite:slt', speech.listVoices({ engine: 'gnuspeech' })[0]?.id]) {
      if (!voiceId) continue;
      const run = async (timings: boolean) => {
        const t0 = performance.now();
        await speech.synthesize({ text, voiceId, format: 'mp3', timings });
        return performance.now() - t0;
      };
      await run(true);
      const plain: number[] = [];
      const timed: number[] = [];
      for (let i = 0; i < 5; i++) {
        plain.push(await run(false));
        timed.push(await run(true));
      }
      const added = (median(timed) / median(plain) - 1) * 100;
      rows.push({
        metric: `timings' cost on a whole synthesis, ${voiceId}`,
        value: added,
        unit: '%',
        target: '≤ 15',
        pass: added <= 15,
      });
    }
    return rows;
  } finally {
    await speech.close();
  }
}

function quantile95(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}
