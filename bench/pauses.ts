/**
 * `npx tsx bench/run.ts --only pauses`: the silence between two sentences (and at a `;`, a comma, a blank line) on each
 * built-in engine, as the engine leaves it when it speaks the whole text in one call and as Polyvox's file has it
 * (each sentence synthesized apart and joined, `pipeline/pauses.ts`). Silence: the longest run of 10 ms frames under
 * −40 dB of the loudest inside the speech.
 */
import { createSpeech } from '@polyvox/speech';
import { decodeWav } from '@polyvox/speech/formats';
import { createLocalEngines } from '@polyvox/speech/measure';
import { longestPause, nativeRendering } from '../packages/speech/test/support/pauses.ts';
import type { BenchRow } from './stats.js';

const TEXTS = {
  'between sentences (. )': 'The train left the station. We waited for the next one.',
  'at a semicolon (; )': 'The train left the station; we waited for the next one.',
  'at a comma (, )': 'The train left the station, we waited for the next one.',
  'at a paragraph (.\\n\\n)': 'The train left the station.\n\nWe waited for the next one.',
  '中文 between sentences (。)': '火车离开了车站。我们等下一班。',
};
const VOICES = ['espeak:en-us', 'espeak:cmn', 'flite:slt', 'gnuspeech:male'];

export async function pausesRows(): Promise<BenchRow[]> {
  const speech = await createSpeech({ cache: false, poolSize: 1 });
  const engines = createLocalEngines({});
  const rows: BenchRow[] = [];
  try {
    for (const voiceId of VOICES) {
      const voice = speech.getVoice(voiceId);
      if (!voice) continue;
      const engine = engines.get(voice.engine)!;
      for (const [label, text] of Object.entries(TEXTS)) {
        if (/\p{Script=Han}/u.test(text) !== voice.languages.some((l) => l.startsWith('zh') || l === 'cmn')) continue;
        const own = await nativeRendering(engine, voice, text);
        const native = longestPause(own.samples, own.sampleRate).sec * 1000;
        const file = decodeWav((await speech.synthesize({ text, voiceId, format: 'wav' })).audio);
        const ours = longestPause(file.samples, file.sampleRate).sec * 1000;
        rows.push({ metric: `${voiceId} ${label}: native (one call)`, value: native, unit: 'ms' });
        const sentence = label.includes('sentences');
        rows.push({
          metric: `${voiceId} ${label}: Polyvox`,
          value: ours,
          unit: 'ms',
          ...(sentence ? { target: '≥ 250 and ≥ 0.7 × native', pass: ours >= 250 && ours >= 0.7 * native } : {}),
        });
      }
    }
  } finally {
    await speech.close();
    await Promise.all([...engines.values()].map((e) => e.close?.()));
  }
  return rows;
}
