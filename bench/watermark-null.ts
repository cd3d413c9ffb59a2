/**
 * The watermark bench's false-positive run, in a worker thread: five-second windows of audio not made
 * with the mark (the engines' own output, the human recordings, noise, tones, music, babble,
 * silence), each through the full detector; the search maxima go back for the null model.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { detectWatermark } from '@polyvox/speech/watermark';
import { babble, gaussian, humanRecordings, music, prng } from './watermark-audio.js';

export interface NullResult {
  maxima: number[];
  positives: number;
  kinds: Record<string, number>;
  /** Each window's kind, in the order of `maxima`. */
  order: string[];
}

const RATES = [24000, 16000, 22050, 48000, 44100, 8000];

/** Five-second windows of audio not made with the mark. */
function* unmarkedWindows(
  clips: { samples: Float32Array; rate: number }[],
  want: number,
  part: number,
  parts: number,
): Generator<{ x: Float32Array; rate: number; kind: string }> {
  let made = 0;
  const random = prng(23 + part);
  let h = 0;
  // eSpeak NG's, Flite's and GnuSpeech's own output, unmarked: every second.
  for (const clip of clips)
    for (let s = 0; s + 5 * clip.rate <= clip.samples.length && made < want; s += clip.rate, made++)
      yield { x: clip.samples.subarray(s, s + 5 * clip.rate), rate: clip.rate, kind: 'engines' };
  // Human recordings, joined, every 0.25 s, at each rate.
  for (const rate of RATES) {
    const rec = humanRecordings(rate);
    const all = new Float32Array(rec.reduce((n, r) => n + r.length, 0));
    let o = 0;
    for (const r of rec) all.set(r, (o += r.length) - r.length);
    for (let s = 0; s + 5 * rate <= all.length; s += rate / 4)
      if (h++ % parts === part && made++ < want) yield { x: all.subarray(s, s + 5 * rate), rate, kind: 'human' };
  }
  // Noise, tones, music, babble and silence, until the count is reached.
  for (let i = 0; made < want; i++, made++) {
    const rate = RATES[i % RATES.length]!;
    const n = 5 * rate;
    const kind = ['white noise', 'pink noise', 'tone', 'two tones', 'sweep', 'music', 'babble', 'silence'][i % 8]!;
    let x: Float32Array;
    const amp = 10 ** (-random() * 3);
    if (kind === 'white noise') x = Float32Array.from({ length: n }, () => amp * 0.3 * gaussian(random));
    else if (kind === 'pink noise') {
      let b = 0;
      x = Float32Array.from({ length: n }, () => (b = 0.98 * b + 0.2 * gaussian(random)) * amp * 0.3);
    } else if (kind === 'tone' || kind === 'two tones') {
      const f1 = 100 + random() * 3500,
        f2 = 100 + random() * 3500;
      x = Float32Array.from(
        { length: n },
        (_, t) =>
          amp *
          0.5 *
          (Math.sin((2 * Math.PI * f1 * t) / rate) + (kind === 'two tones' ? Math.sin((2 * Math.PI * f2 * t) / rate) : 0)),
      );
    } else if (kind === 'sweep') {
      const f0 = 100 + random() * 1000;
      x = Float32Array.from({ length: n }, (_, t) => amp * 0.5 * Math.sin(2 * Math.PI * f0 * (t / rate) * (1 + t / n)));
    } else if (kind === 'music') x = music(n, rate, random).map((v) => v * amp);
    else if (kind === 'babble') x = babble(n, rate, random).map((v) => v * amp * 0.1);
    else x = random() < 0.5 ? new Float32Array(n) : Float32Array.from({ length: n }, () => (random() - 0.5) / 32768);
    yield { x, rate, kind };
  }
}

function run(): NullResult {
  const { clips, part, parts, want, key } = workerData as {
    clips: { samples: Float32Array; rate: number }[];
    part: number;
    parts: number;
    want: number;
    key: Uint8Array;
  };
  const maxima: number[] = [];
  const kinds: Record<string, number> = {};
  const order: string[] = [];
  let positives = 0;
  for (const w of unmarkedWindows(clips, want, part, parts)) {
    const r = detectWatermark(w.x, w.rate, key);
    if (r.detected) positives++;
    maxima.push(r.score);
    order.push(w.kind);
    kinds[w.kind] = (kinds[w.kind] ?? 0) + 1;
    if (part === 0 && maxima.length % 1000 === 0) console.log(`false positives: ${maxima.length * parts} windows`);
  }
  return { maxima, positives, kinds, order };
}

if (parentPort) parentPort.postMessage(run());
