/**
 * `npx tsx bench/run.ts --only watermark`: the audio watermark (issue 16, item 3) over WM_CLIPS clips
 * (default 200) of varied text, languages, voices, engines and output rates, synthesized by the
 * package without a mark, then marked and attacked: detection on 5 s after each attack, the payload
 * on 15 s after mp3, false positives on ≥ 10,000 five-second windows of unmarked audio (and the
 * null model fitted to them), the mark's energy, and the embedding and detection times.
 * WM_ONLY=speed, marked or null runs one part (the clips are synthesized for `marked` and `null`):
 * the false-positive run alone takes about as long as everything else.
 */
import { createHash } from 'node:crypto';
import { createSpeech, type Speech } from '@polyvox/speech';
import { resamplePolyphase } from '@polyvox/speech/formats';
import { detectWatermark, embedWatermark, WATERMARK_THRESHOLD } from '@polyvox/speech/watermark';
import { encodeAudio, nullModel, stoi } from '@polyvox/speech/measure';
import { Worker } from 'node:worker_threads';
import { ATTACKS, power, prng } from './watermark-audio.js';
import type { NullResult } from './watermark-null.js';
import { median } from './stats.js';
import fs from 'node:fs/promises';

/**
 * Every score behind the rows (each attack's, in clip order; each unmarked window's, with its kind), kept in
 * bench/results/watermark-scores.json so that the rates at another threshold can be read without a new run.
 */
async function keepScores(part: string, scores: unknown): Promise<void> {
  const file = new URL('./results/watermark-scores.json', import.meta.url);
  await fs.mkdir(new URL('./results/', import.meta.url), { recursive: true });
  const all = JSON.parse(await fs.readFile(file, 'utf8').catch(() => '{}')) as Record<string, unknown>;
  all[part] = scores;
  await fs.writeFile(file, JSON.stringify(all));
}

interface Row {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

const KEY = new Uint8Array(createHash('sha256').update('polyvox bench watermark key').digest());
const RATES = [24000, 16000, 22050, 48000, 44100, 8000];

const TEXTS: Record<string, string[]> = {
  en: [
    'The morning train left the station slowly, carrying travellers towards the distant mountains.',
    'Polyvox turns written text into natural speech for podcasts, lessons, games and accessible apps.',
    'In the beginning of the year the committee decided to build a new library near the river.',
    'Please remember to bring your passport, your tickets and a warm coat for the evening walk.',
    'Seven hundred and forty two people signed the letter before it reached the city council.',
    'Have you ever wondered why the sky turns orange and red just before the sun goes down?',
    'The recipe needs two eggs, a cup of flour, a pinch of salt and a little patience.',
    'Our quarterly results show steady growth in every region, especially in the northern markets.',
  ],
  fr: [
    'Le train du matin a quitté la gare lentement, emportant les voyageurs vers les montagnes lointaines.',
    'Nous transformons le texte écrit en une voix naturelle pour les leçons, les jeux et les podcasts.',
    "N'oubliez pas votre passeport, vos billets et un manteau chaud pour la promenade du soir.",
    'La bibliothèque municipale ouvrira ses portes au printemps, près de la rivière et du vieux pont.',
  ],
  de: [
    'Der Morgenzug verließ langsam den Bahnhof und brachte die Reisenden in die fernen Berge.',
    'Wir verwandeln geschriebenen Text in natürliche Sprache für Unterricht, Spiele und Podcasts.',
    'Bitte denken Sie an Ihren Reisepass, die Fahrkarten und einen warmen Mantel für den Abend.',
    'Die neue Bibliothek wird im Frühling am Fluss eröffnet, gleich neben der alten Brücke.',
  ],
  es: [
    'El tren de la mañana salió lentamente de la estación, llevando viajeros hacia las montañas lejanas.',
    'Convertimos el texto escrito en voz natural para clases, juegos, podcasts y aplicaciones accesibles.',
    'Por favor, recuerde traer su pasaporte, sus billetes y un abrigo para el paseo de la tarde.',
  ],
  cmn: [
    '清晨的火车缓缓驶出车站，载着旅客前往远方的群山。',
    '我们把文字变成自然的语音，用于课程、游戏、播客和无障碍应用。',
    '请记得带上护照、车票和一件暖和的外套，晚上我们去河边散步。',
    '今年年初，委员会决定在河边建一座新的图书馆，还有一个花园和一家小咖啡馆。',
  ],
  ru: [
    'Утренний поезд медленно отошёл от станции и повёз путешественников к далёким горам.',
    'Мы превращаем письменный текст в естественную речь для уроков, игр и подкастов.',
    'Пожалуйста, не забудьте паспорт, билеты и тёплое пальто для вечерней прогулки.',
  ],
};

const VOICES: { id: string; lang: string }[] = [
  ...['espeak:en-us', 'espeak:en-us+f2', 'espeak:en-us+m3', 'espeak:en-us+klatt', 'espeak:en-us+grandma'].map((id) => ({
    id,
    lang: 'en',
  })),
  ...['flite:slt', 'flite:kal', 'flite:awb', 'flite:rms', 'flite:kal16'].map((id) => ({ id, lang: 'en' })),
  ...['gnuspeech:male', 'gnuspeech:female', 'gnuspeech:large_child'].map((id) => ({ id, lang: 'en' })),
  ...['espeak:fr', 'espeak:fr+f3'].map((id) => ({ id, lang: 'fr' })),
  ...['espeak:de', 'espeak:de+m2'].map((id) => ({ id, lang: 'de' })),
  ...['espeak:es', 'espeak:es+f1'].map((id) => ({ id, lang: 'es' })),
  ...['espeak:cmn', 'espeak:cmn+f2'].map((id) => ({ id, lang: 'cmn' })),
  ...['espeak:ru'].map((id) => ({ id, lang: 'ru' })),
];

interface Clip {
  samples: Float32Array;
  rate: number;
  voice: string;
}

function pcmFloat(audio: Buffer): Float32Array {
  const i16 = new Int16Array(audio.buffer, audio.byteOffset, audio.length >> 1);
  return Float32Array.from(i16, (v) => v / 32768);
}

/** Clip i: a voice, three or four sentences of its language (≥ 15 s), at one of the output rates. */
async function makeClip(speech: Speech, i: number): Promise<Clip> {
  const v = VOICES[i % VOICES.length]!;
  const pool = TEXTS[v.lang]!;
  let samples: Float32Array = new Float32Array(0);
  let rate = 24000;
  for (let n = 3; samples.length < 16 * rate && n <= 8; n++) {
    const text = Array.from({ length: n }, (_, j) => pool[(i + j) % pool.length]!).join(' ');
    const r = await speech.synthesize({ text, voiceId: v.id, format: 'pcm', checkLanguage: false });
    rate = r.sampleRate;
    samples = pcmFloat(r.audio);
  }
  const out = RATES[i % RATES.length]!;
  return { samples: resamplePolyphase(samples.subarray(0, 20 * rate), rate, out), rate: out, voice: v.id };
}

function window(x: Float32Array, rate: number, seconds: number, random: () => number): Float32Array {
  const n = Math.min(x.length, Math.round(seconds * rate));
  const start = Math.floor(random() * (x.length - n + 1));
  return x.subarray(start, start + n);
}

const pct = (k: number, n: number) => (100 * k) / Math.max(1, n);

/**
 * Intelligibility with the mark against without, per engine: STOI (analysis/stoi.ts) of each marked
 * clip against the same clip unmarked; 1 is the same envelopes, and white noise 20 dB under speech
 * scores about 0.98 (packages/speech/test/stoi.test.ts's recording).
 */
function intelligibility(clips: Clip[], marked: Float32Array[]): Row[] {
  const byEngine = new Map<string, number[]>();
  clips.forEach((c, i) => {
    const engine = c.voice.split(':')[0]!;
    byEngine.set(engine, [...(byEngine.get(engine) ?? []), stoi(c.samples, marked[i]!, c.rate)]);
  });
  return [...byEngine].map(([engine, scores]) => {
    const lowest = Math.min(...scores);
    return {
      metric: `intelligibility (STOI) marked vs unmarked, ${engine}, ${scores.length} clips; mean ${(scores.reduce((a, b) => a + b, 0) / scores.length).toFixed(4)}`,
      value: Number(lowest.toFixed(4)),
      unit: 'STOI (lowest clip)',
      target: '≥ 0.99',
      pass: lowest >= 0.99,
    };
  });
}

async function robustness(clips: Clip[], marked: Float32Array[]): Promise<Row[]> {
  const rows: Row[] = [];
  const random = prng(7);
  const stats = new Map<string, { hits: number; n: number; scores: number[] }>();
  for (const [c, clip] of clips.entries()) {
    // A 5.6 s stretch goes through each attack; the detector then sees a random 5 s of what comes out.
    const stretch = window(marked[c]!, clip.rate, 5.6, random);
    for (const [name, attack] of Object.entries(ATTACKS)) {
      const a = await attack(stretch, clip.rate, random);
      const r = detectWatermark(window(a.x, a.rate, 5, random), a.rate, KEY);
      const s = stats.get(name) ?? { hits: 0, n: 0, scores: [] };
      s.n++;
      if (r.detected) s.hits++;
      s.scores.push(r.score);
      stats.set(name, s);
    }
    if ((c + 1) % 20 === 0) console.log(`robustness: ${c + 1}/${clips.length} clips`);
  }
  await keepScores('attacks', Object.fromEntries([...stats].map(([name, s]) => [name, s.scores])));
  for (const [name, s] of stats) {
    const value = pct(s.hits, s.n);
    rows.push({
      metric: `zero-bit on 5 s after ${name} (${s.n} clips, mean score ${(s.scores.reduce((a, b) => a + b, 0) / s.n).toFixed(1)}, min ${Math.min(...s.scores).toFixed(1)})`,
      value,
      unit: '% detected',
      target: '≥ 99',
      pass: value >= 99,
    });
  }
  return rows;
}

async function payloads(clips: Clip[], marked: Float32Array[], payloadOf: (i: number) => number): Promise<Row> {
  const random = prng(11);
  let ok = 0,
    wrong = 0,
    n = 0;
  for (const [c, clip] of clips.entries()) {
    if (marked[c]!.length < 15 * clip.rate) continue;
    const x = window(marked[c]!, clip.rate, 15, random);
    const mp3 = await encodeAudio(x, clip.rate, 'mp3');
    const y = await decodeMp3(mp3, clip.rate);
    const r = detectWatermark(y, clip.rate, KEY, { payload: true });
    n++;
    if (r.payload === payloadOf(c)) ok++;
    else if (r.payload !== null) wrong++;
  }
  const value = pct(ok, n);
  return {
    metric: `payload (32 bits) on 15 s after mp3 64 kb/s (${n} clips; wrong payloads returned: ${wrong})`,
    value,
    unit: '% recovered',
    target: '≥ 95, 0 wrong',
    pass: value >= 95 && wrong === 0,
  };
}

async function decodeMp3(mp3: Buffer, rate: number): Promise<Float32Array> {
  const { decodeAudio } = await import('@polyvox/speech');
  return (await decodeAudio(mp3, 'mp3', rate)).samples;
}

async function falsePositives(clips: Clip[]): Promise<Row[]> {
  const want = Number(process.env.WM_NULL_WINDOWS ?? 10_000);
  const parts = 2;
  // Two threads, each with half of the clips and every other synthetic window: the search is the cost.
  const results = await Promise.all(
    Array.from({ length: parts }, (_, part) => {
      const mine = clips.filter((_, i) => i % parts === part).map((c) => ({ samples: c.samples.slice(), rate: c.rate }));
      const w = new Worker(new URL('./watermark-null-entry.mjs', import.meta.url), {
        workerData: { clips: mine, part, parts, want: Math.ceil(want / parts), key: KEY },
        transferList: mine.map((c) => c.samples.buffer),
      });
      return new Promise<NullResult>((resolve, reject) => {
        w.once('message', (m: NullResult) => resolve(m));
        w.once('error', reject);
        w.once('exit', (code) => code !== 0 && reject(new Error(`null-model worker exited with ${code}`)));
      }).finally(() => void w.terminate());
    }),
  );
  const maxima = results.flatMap((r) => r.maxima);
  const positives = results.reduce((n, r) => n + r.positives, 0);
  const byKind = new Map<string, number>();
  for (const r of results) for (const [k, n] of Object.entries(r.kinds)) byKind.set(k, (byKind.get(k) ?? 0) + n);
  await keepScores('null', { maxima, kinds: results.flatMap((r) => r.order) });
  const model = nullModel(maxima.filter((m) => m > 0));
  const kinds = [...byKind].map(([k, n]) => `${k} ${n}`).join(', ');
  return [
    {
      metric: `false positives in ${maxima.length} unmarked 5 s windows (${kinds}), threshold ${WATERMARK_THRESHOLD}`,
      value: positives,
      unit: 'windows',
      target: '0',
      pass: positives === 0,
    },
    {
      metric: `highest score of unmarked audio (median ${median(maxima).toFixed(2)})`,
      value: Math.max(...maxima),
      unit: 'score',
      target: `< ${WATERMARK_THRESHOLD}`,
      pass: Math.max(...maxima) < WATERMARK_THRESHOLD,
    },
    {
      metric: `null model fitted to the maxima: effective independent hypotheses ${model.effective.toFixed(0)}, threshold for FAR 1e-6 ${model.thresholdFor1e6.toFixed(2)}`,
      value: model.farAtThreshold,
      unit: 'FAR at the threshold',
      target: '< 1e-6',
      pass: model.farAtThreshold < 1e-6,
    },
  ];
}

async function speed(speech: Speech): Promise<Row[]> {
  const text = 'Polyvox turns written text into natural speech for podcasts, lessons, games and accessible apps.';
  const req = { text, voiceId: 'espeak:en-us', format: 'mp3' as const };
  await speech.synthesize(req);
  const synth: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await speech.synthesize({ ...req, text: `${text} ${i}` });
    synth.push(performance.now() - t0);
  }
  const pcm = await speech.synthesize({ ...req, format: 'pcm' });
  const x = resamplePolyphase(pcmFloat(pcm.audio), pcm.sampleRate, 24000);
  const six = x.length >= 6 * 24000 ? x.subarray(0, 6 * 24000) : x;
  for (let i = 0; i < 10; i++) embedWatermark(six, 24000, { key: KEY, payload: i });
  const embed: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    embedWatermark(six, 24000, { key: KEY, payload: i });
    embed.push(performance.now() - t0);
  }
  const ten = new Float32Array(10 * 24000);
  for (let o = 0; o < ten.length; o += six.length) ten.set(six.subarray(0, Math.min(six.length, ten.length - o)), o);
  const marked = embedWatermark(ten, 24000, { key: KEY, payload: 1 });
  const detect: number[] = [],
    unmarked: number[] = [],
    decode: number[] = [];
  for (let i = 0; i < 7; i++) {
    let t0 = performance.now();
    detectWatermark(marked, 24000, KEY);
    detect.push(performance.now() - t0);
    // Audio without the mark never stops early: the whole search.
    t0 = performance.now();
    detectWatermark(ten, 24000, KEY);
    unmarked.push(performance.now() - t0);
    t0 = performance.now();
    detectWatermark(marked, 24000, KEY, { payload: true });
    decode.push(performance.now() - t0);
  }
  const e = median(embed),
    s = median(synth);
  return [
    { metric: `embed ${(six.length / 24000).toFixed(1)} s at 24 kHz`, value: e, unit: 'ms', target: '≤ 2', pass: e <= 2 },
    {
      metric: `embed vs engine + mp3 encoder of the same 100-character request (${s.toFixed(0)} ms)`,
      value: (100 * e) / s,
      unit: '% added',
      target: '≤ 5',
      pass: e / s <= 0.05,
    },
    { metric: 'detect a 10 s clip (zero-bit)', value: median(detect), unit: 'ms', target: '< 100', pass: median(detect) < 100 },
    {
      metric: 'detect a 10 s UNMARKED clip (zero-bit)',
      value: median(unmarked),
      unit: 'ms',
      target: '< 100',
      pass: median(unmarked) < 100,
    },
    { metric: 'detect a 10 s clip with the payload decoded', value: median(decode), unit: 'ms' },
  ];
}

export async function watermarkRows(): Promise<Row[]> {
  const count = Number(process.env.WM_CLIPS ?? 200);
  const only = process.env.WM_ONLY;
  if (only !== undefined && !['speed', 'marked', 'null'].includes(only))
    throw new Error(`WM_ONLY: unknown part ${only} (speed, marked, null)`);
  const part = (name: string) => only === undefined || only === name;
  const speech = await createSpeech({ cache: false });
  const rows: Row[] = [];
  try {
    if (part('speed')) rows.push(...(await speed(speech)));
    if (only === 'speed') return rows;
    const clips: Clip[] = [];
    for (let i = 0; i < count; i++) clips.push(await makeClip(speech, i));
    console.log(`synthesized ${clips.length} clips (${clips.reduce((s, c) => s + c.samples.length / c.rate, 0).toFixed(0)} s)`);
    if (part('marked')) rows.push(...(await markedRows(clips)));
    // The false-positive run is the longest part: what came before is worth having if it is cut short.
    for (const r of rows) console.log(`${r.metric}: ${r.value} ${r.unit}`);
    if (part('null')) rows.push(...(await falsePositives(clips)));
  } finally {
    await speech.close();
  }
  return rows;
}

/** Marked clips: the mark's energy, intelligibility, detection after each attack, the payload. */
async function markedRows(clips: Clip[]): Promise<Row[]> {
  const rows: Row[] = [];
  const payloadOf = (i: number) => (Math.imul(i + 1, 2654435761) >>> 0) ^ 0x5a5a5a5a;
  const marked = clips.map((c, i) => embedWatermark(c.samples, c.rate, { key: KEY, payload: payloadOf(i) >>> 0 }));
  const ratios = clips.map((c, i) => {
    let d = 0;
    for (let j = 0; j < c.samples.length; j++) d += (marked[i]![j]! - c.samples[j]!) ** 2;
    return 10 * Math.log10(power(c.samples) / (d / c.samples.length));
  });
  rows.push({
    metric: `speech energy over the mark's (difference signal), ${clips.length} clips; mean ${(ratios.reduce((a, b) => a + b, 0) / ratios.length).toFixed(1)} dB`,
    value: Math.min(...ratios),
    unit: 'dB (lowest clip)',
    target: '≥ 30',
    pass: Math.min(...ratios) >= 30,
  });
  rows.push(...intelligibility(clips, marked));
  rows.push(...(await robustness(clips, marked)));
  rows.push(await payloads(clips, marked, (i) => payloadOf(i) >>> 0));
  return rows;
}
