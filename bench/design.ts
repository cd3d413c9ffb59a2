/**
 * Voice design rows (`npm run bench -- --only design`): analysis of a 5-minute sample, and a clone
 * preview of 100 characters against a plain synthesis of the same text on the clone's base voice.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyzeSample, cloneProfile, decodeToPcm, type Speech, type VoiceInfo, type VoiceProfile } from '@polyvox/speech';
import { encodeWav } from '@polyvox/speech/formats';
import { median, time } from './stats.js';

export interface DesignRow {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/speech');
const FILES = ['jfk.wav', ...Array.from({ length: 8 }, (_, i) => `LJ001-000${i + 1}.wav`)];
/** Just under the 300 s a sample may last. */
const SAMPLE_SEC = 299;
/** The default English voice (the library ranks Flite slt first). */
const BASE = 'flite:slt';
const TEXT_100 = 'Polyvox turns written text into natural speech for podcasts, lessons, games and accessible apps.';

/** The fixtures joined, round and round, into one WAV of SAMPLE_SEC seconds at 16 kHz. */
async function fiveMinuteSample(dir: string): Promise<string> {
  const parts = await Promise.all(FILES.map((f) => decodeToPcm(path.join(FIXTURES, f), 16000)));
  const out = new Float32Array(SAMPLE_SEC * 16000);
  for (let o = 0, i = 0; o < out.length; i++) {
    const p = parts[i % parts.length]!.samples;
    out.set(p.subarray(0, Math.min(p.length, out.length - o)), o);
    o += p.length;
  }
  const file = path.join(dir, 'five-minutes.wav');
  await writeFile(file, encodeWav(out, 16000));
  return file;
}

export async function designRows(speech: Speech): Promise<DesignRow[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'polyvox-bench-design-'));
  try {
    const sample = await fiveMinuteSample(dir);
    await analyzeSample(sample);
    const runs: number[] = [];
    let duration = 0;
    for (let i = 0; i < 3; i++) {
      const { ms, value } = await time(() => analyzeSample(sample));
      runs.push(ms / 1000);
      duration = value.probe.durationSec;
    }
    const seconds = median(runs);
    const rows: DesignRow[] = [
      {
        metric: `analysis of a ${duration.toFixed(0)} s sample (decode, VAD, F0, rate, formants, LTAS, SNR)`,
        value: seconds,
        unit: 's',
      },
      {
        metric: 'analysis time as a fraction of the sample duration',
        value: seconds / duration,
        unit: '× duration',
        target: '≤ 0.01',
        pass: seconds / duration <= 0.01,
      },
    ];

    // A clone of the LJ speaker (eight files joined) on the base voice, against the base voice itself.
    const ljFile = path.join(dir, 'lj.wav');
    const lj = await Promise.all(FILES.slice(1).map((f) => decodeToPcm(path.join(FIXTURES, f), 16000)));
    const joined = new Float32Array(lj.reduce((n, p) => n + p.samples.length, 0));
    lj.reduce((o, p) => (joined.set(p.samples, o), o + p.samples.length), 0);
    await writeFile(ljFile, encodeWav(joined, 16000));
    const voice = speech.getVoice(BASE);
    if (!voice) throw new Error(`${BASE} is not in the library`);
    const samples: [string, string][] = [
      ['the LJ speaker, 50 s', ljFile],
      ['jfk.wav, 11 s, a slower speaker', path.join(FIXTURES, 'jfk.wav')],
    ];
    for (const [label, file] of samples) {
      const profile = cloneProfile((await analyzeSample(file)).measures, voice);
      rows.push(await previewRatio(speech, voice, profile, label));
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A clone preview of 100 characters against a plain synthesis of the same text on its base voice, interleaved. */
async function previewRatio(speech: Speech, voice: VoiceInfo, profile: VoiceProfile, label: string): Promise<DesignRow> {
  const text = (i: number, tag: string) => `${TEXT_100.slice(0, 92)} ${tag}${String(i).padStart(3, '0')}`;
  for (let i = 0; i < 3; i++) {
    await speech.synthesize({ text: text(i, 'pw'), voice, format: 'mp3' });
    await speech.synthesize({ text: text(i, 'cw'), voice, profile, format: 'mp3' });
  }
  const plain: number[] = [];
  const clone: number[] = [];
  let plainSec = 0;
  let cloneSec = 0;
  const N = 20;
  for (let i = 0; i < N; i++) {
    const p = async () => {
      const r = await time(() => speech.synthesize({ text: text(i, 'p'), voice, format: 'mp3' }));
      plain.push(r.ms);
      plainSec = r.value.durationSec;
    };
    const c = async () => {
      const r = await time(() => speech.synthesize({ text: text(i, 'c'), voice, profile, format: 'mp3' }));
      clone.push(r.ms);
      cloneSec = r.value.durationSec;
    };
    if (i % 2) {
      await p();
      await c();
    } else {
      await c();
      await p();
    }
  }
  const ratio = median(clone) / median(plain);
  return {
    metric: `clone preview of 100 chars (${label}) vs plain synthesis on ${voice.id} (median ${median(clone).toFixed(1)} vs ${median(plain).toFixed(1)} ms for ${cloneSec.toFixed(1)} vs ${plainSec.toFixed(1)} s of audio; ${N} interleaved runs, mp3)`,
    value: ratio,
    unit: 'ratio',
    target: '≤ 1.5',
    pass: ratio <= 1.5,
  };
}
