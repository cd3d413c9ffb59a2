/**
 * `npx tsx bench/run.ts --only timings`: the generic aligner (DTW of cepstra against an eSpeak NG rendering) measured
 * against eSpeak NG's own word events on eSpeak voices it did not render (other accents, variants and speeds); Flite's
 * and GnuSpeech's own word times measured against that aligner, and checked (inside the audio, ordered, the pauses
 * between the words the text puts them); and what timings add to a whole synthesis's time per engine.
 */
import { createSpeech, type Speech, type Timings } from '@polyvox/speech';
import { decodeWav } from '@polyvox/speech/formats';
import { alignByReference, trimWordSilences } from '@polyvox/speech/measure';
import { pauses } from '../packages/speech/test/support/pauses.ts';
import type { BenchRow } from './stats.js';

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

    // Engines with their own word times: their word starts against the generic aligner's on the same audio, and the
    // shape of their timings on every text (each has commas and a sentence end).
    for (const voiceId of ['flite:slt', 'flite:kal16', 'gnuspeech:male']) {
      const gaps: number[] = [];
      const onsets = { own: [] as number[], generic: [] as number[] };
      let faults = 0;
      let paused = 0;
      for (const text of TEXTS) {
        const produced = await speech.synthesize({ text, voiceId, format: 'wav', timings: true });
        const audio = decodeWav(produced.audio);
        const found = pauses(audio.samples, audio.sampleRate, 0.15);
        paused += found.length;
        faults += shapeFaults(produced.timings!, text, found);
        const reference = await speech.synthesize({ text, voiceId: 'espeak:en-us', format: 'wav' });
        const generic = alignByReference(audio, { ...decodeWav(reference.audio), words: reference.words });
        if (generic.length !== produced.words.length) continue;
        generic.forEach((w, i) => gaps.push(produced.words[i]!.start - w.start));
        // Where the sound starts again after a silence of over 100 ms is where the next word starts: both methods' words
        // trimmed of silence as the pipeline trims them, the first word after each silence against its end.
        const trimmed = trimWordSilences(audio.samples, audio.sampleRate, generic);
        for (const p of pauses(audio.samples, audio.sampleRate, 0.1)) {
          const next = produced.words.findIndex((w) => w.start >= p.start - 0.01);
          if (next < 0) continue;
          onsets.own.push(Math.abs(produced.words[next]!.start - p.end));
          onsets.generic.push(Math.abs(trimmed[next]!.start - p.end));
        }
      }
      const mean = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)) * 1000;
      rows.push({
        metric: `own word starts vs the generic aligner (mean abs), ${voiceId}`,
        value: mean(gaps.map(Math.abs)),
        unit: 'ms',
      });
      rows.push({
        metric: `own word starts vs the generic aligner (mean, + = own later), ${voiceId}`,
        value: mean(gaps),
        unit: 'ms',
      });
      for (const method of ['own', 'generic'] as const)
        rows.push({
          metric: `${method} word start after a silence > 100 ms vs the sound's onset (mean abs of ${onsets[method].length}), ${voiceId}`,
          value: mean(onsets[method]),
          unit: 'ms',
        });
      rows.push({
        metric: `words outside the audio, out of order, overlapping, or astride a pause > 150 ms (of ${paused} pauses, each between words the text parts with punctuation), ${voiceId}`,
        value: faults,
        unit: 'faults',
        target: '0',
        pass: faults === 0,
      });
    }

    const text = `${TEXTS[0]} ${TEXTS[1]} ${TEXTS[2]}`;
    let fresh = 0;
    // Made-up words each run, new to Flite's lexicon of phones: one between known words is placed by the alignment; two
    // side by side pay a run of the phones every time (shown, with no goal: the case of a sentence's first words).
    const word = () => Array.from((++fresh).toString(8).padStart(3, '0'), (d) => SYLLABLES[Number(d)]).join('');
    const coined = () => `${text} Then ${word()}.`;
    const pair = () => `${text} Then ${word()} ${word()}.`;
    const cases: [string, string, (() => string)?, boolean?][] = [
      ['espeak:en-us', 'espeak:en-us'],
      ['flite:slt', 'flite:slt'],
      ['flite:kal16', 'flite:kal16'],
      ['flite:slt, with a word not met before', 'flite:slt', coined],
      ['flite:kal16, with a word not met before', 'flite:kal16', coined],
      ['flite:kal16, with two words not met before side by side', 'flite:kal16', pair, false],
      ['gnuspeech:male', 'gnuspeech:male'],
    ];
    for (const [label, voiceId, textOf, goal] of cases)
      rows.push(await costRow(speech, label, voiceId, textOf ?? (() => text), goal ?? true));
    return rows;
  } finally {
    await speech.close();
  }
}

const SYLLABLES = ['ba', 'ko', 'mi', 'tu', 'ze', 'ro', 'li', 'na'];

/**
 * What timings add to a whole mp3 synthesis, as a share of the untimed one's time: the fastest of 9 interleaved runs of
 * each (on a machine shared with other work, the least disturbed run is the one that shows the work itself).
 */
async function costRow(speech: Speech, label: string, voiceId: string, textOf: () => string, goal: boolean): Promise<Row> {
  const run = async (timings: boolean) => {
    const text = textOf();
    const t0 = performance.now();
    await speech.synthesize({ text, voiceId, format: 'mp3', timings });
    return performance.now() - t0;
  };
  await run(false);
  await run(true);
  const plain: number[] = [];
  const timed: number[] = [];
  for (let i = 0; i < 9; i++) {
    plain.push(await run(false));
    timed.push(await run(true));
  }
  const added = (Math.min(...timed) / Math.min(...plain) - 1) * 100;
  const metric = `timings' cost on a whole synthesis, ${label}`;
  return goal ? { metric, value: added, unit: '%', target: '≤ 15', pass: added <= 15 } : { metric, value: added, unit: '%' };
}

/**
 * Faults in a file's word timings: a word outside the audio, before the end of the one before it; a pause with a word
 * reaching more than 30 ms into it, or whose words on either side have no punctuation between them in the text.
 */
function shapeFaults(t: Timings, text: string, found: { start: number; end: number }[]): number {
  let faults = 0;
  let last = 0;
  for (const w of t.words) {
    if (w.start < last - 1e-6 || w.end < w.start || w.end > t.durationSec + 1e-3) faults++;
    last = w.end;
  }
  const chars = Array.from(text);
  for (const p of found) {
    if (t.words.some((w) => w.start < p.end - 0.03 && w.end > p.start + 0.03)) {
      faults++;
      continue;
    }
    const before = t.words.filter((w) => w.end <= p.start + 0.03).at(-1);
    const after = t.words.find((w) => w.start >= p.end - 0.03);
    if (!before || !after || !/[,.;:!?]/u.test(chars.slice(before.charEnd, after.charStart).join(''))) faults++;
  }
  return faults;
}

function quantile95(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}
