/**
 * npm run bench: engine speed, POST /tts against the floor (the engine and an encoder without the
 * platform), streaming first byte, API latency under load and the cache, measured in one run against
 * the real server process. Prints a table and writes JSON (bench/results/latest.json).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createSpeech, type AudioFormat, type Speech } from '@polyvox/speech';
import { bundleRow, measureBundle } from './bundle.js';
import { designRows } from './design.js';
import { createFloor, type Floor } from './floor.js';
import { startServer, type BenchServer } from './server.js';
import { median, quantile, time } from './stats.js';
import { usageRows } from './usage.js';
import { firstStreamBenchRows, sizingRows, startRows } from './start.js';
import { scaleRows } from './scale.js';

const TEXT_100 = 'Polyvox turns written text into natural speech for podcasts, lessons, games and accessible apps.';
const SENTENCE = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';
const LONG = Array.from({ length: 40 }, (_, i) => `${SENTENCE.replace('morning', i % 2 ? 'evening' : 'morning')} Stop ${i + 1}.`)
  .join(' ')
  .slice(0, 2000);

interface Row {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

async function tts(
  s: BenchServer,
  body: Record<string, unknown>,
): Promise<{ ms: number; firstByteMs: number; bytes: number; cache: string | null; timing: string | null }> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}/tts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': s.sid },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST /tts ${res.status}: ${await res.text()}`);
  let firstByteMs = -1;
  let bytes = 0;
  for await (const chunk of res.body!) {
    if (firstByteMs < 0) firstByteMs = performance.now() - t0;
    bytes += chunk.length;
  }
  return {
    ms: performance.now() - t0,
    firstByteMs,
    bytes,
    cache: res.headers.get('x-cache'),
    timing: res.headers.get('server-timing'),
  };
}

async function engineRtf(speech: Speech): Promise<Row[]> {
  const cases = [
    { label: 'espeak-ng (en-us)', voiceId: 'espeak:en-us', text: `${SENTENCE} ${TEXT_100}` },
    {
      label: 'espeak-ng (cmn)',
      voiceId: 'espeak:cmn',
      text: '清晨的火车缓缓驶出车站，载着旅客前往远方的群山。我们把文字变成自然的语音。',
    },
    { label: 'flite (slt)', voiceId: 'flite:slt', text: `${SENTENCE} ${TEXT_100}` },
    { label: 'gnuspeech (male)', voiceId: 'gnuspeech:male', text: `${SENTENCE} ${TEXT_100}` },
  ];
  const rows: Row[] = [];
  for (const c of cases) {
    if (!speech.getVoice(c.voiceId)) continue;
    const req = { text: c.text, voiceId: c.voiceId, format: 'pcm' as AudioFormat };
    await speech.synthesize(req);
    const runs: number[] = [];
    let duration = 0;
    for (let i = 0; i < 5; i++) {
      const { ms, value } = await time(() => speech.synthesize({ ...req, text: `${c.text} ${i}` }));
      runs.push(ms / 1000 / value.durationSec);
      duration = value.durationSec;
    }
    rows.push({ metric: `RTF ${c.label} (${duration.toFixed(1)} s audio)`, value: median(runs), unit: '× real time' });
  }
  return rows;
}

/** Distinct texts of the same length, so no request is answered from the cache. */
const text100 = (i: number, tag: string) => `${TEXT_100.slice(0, 92)} ${tag}${String(i).padStart(3, '0')}`;

/**
 * POST /tts (whole file, 100 characters, eSpeak en-us) against the floor: the same engine and an
 * encoder called directly, taking the faster of ffmpeg through pipes and the in-process encoder.
 * Runs interleave (floor, platform, floor, platform …) with the order rotated, and medians are compared.
 */
async function versusFloor(s: BenchServer, floor: Floor, format: 'mp3' | 'opus'): Promise<Row[]> {
  const body = (text: string) => ({ text, voice_id: 'voice_espeak.en-us', format });
  for (let i = 0; i < 3; i++) {
    await floor.ffmpeg(floor.speak(text100(i, 'w')), format);
    floor.inProcess(floor.speak(text100(i, 'x')), format);
    await tts(s, body(text100(i, `${format}w`)));
  }
  const piped: number[] = [];
  const inProc: number[] = [];
  const http: number[] = [];
  const platform: number[] = [];
  const runs: (() => Promise<void>)[] = [];
  const N = 30;
  for (let i = 0; i < N; i++) {
    const text = text100(i, format === 'mp3' ? 'm' : 'o');
    runs.push(
      async () => {
        const { ms } = await time(async () => floor.ffmpeg(floor.speak(text), format));
        piped.push(ms);
      },
      async () => {
        const { ms } = await time(async () => floor.inProcess(floor.speak(text), format));
        inProc.push(ms);
      },
      async () => {
        const h = await tts(s, body(text));
        http.push(h.ms);
        const synth = Number(/synth;dur=([\d.]+)/.exec(h.timing ?? '')?.[1] ?? NaN);
        if (Number.isFinite(synth)) platform.push(h.ms - synth);
      },
    );
  }
  for (let i = 0; i < N; i++) {
    const three = runs.slice(i * 3, i * 3 + 3);
    for (let k = 0; k < 3; k++) await three[(i + k) % 3]!();
  }
  const floorMs = Math.min(median(piped), median(inProc));
  const value = median(http) / floorMs;
  const rows: Row[] = [
    {
      metric: `POST /tts ${format}, 100 chars, vs floor (median ${median(http).toFixed(1)} ms vs engine+ffmpeg pipe ${median(piped).toFixed(1)} ms, engine+in-process encoder ${median(inProc).toFixed(1)} ms; ${N} interleaved runs)`,
      value,
      unit: 'ratio',
      target: '≤ 1.10',
      pass: value <= 1.1,
    },
  ];
  if (format === 'mp3' && platform.length)
    rows.push({
      metric: 'platform time per POST /tts (end to end minus synthesis: HTTP, auth, hold, settle)',
      value: median(platform),
      unit: 'ms',
    });
  return rows;
}

/**
 * The first byte of a streamed 2,000-character text against one whole POST /tts of its first
 * sentence alone (the same platform, the same format), interleaved.
 */
async function firstByte(s: BenchServer, format: 'mp3' | 'opus'): Promise<Row> {
  const sentence = LONG.split(/(?<=\.)\s/)[0]!;
  const alone: number[] = [];
  const streamed: number[] = [];
  const N = 12;
  await tts(s, { text: `w ${LONG}`.slice(0, 2000), voice_id: 'voice_espeak.en-us', format, stream: true });
  for (let i = 0; i < N; i++) {
    const whole = async () =>
      alone.push((await tts(s, { text: `${format}${i} ${sentence}`, voice_id: 'voice_espeak.en-us', format })).ms);
    const stream = async () =>
      streamed.push(
        (
          await tts(s, {
            text: `${format}${i} ${LONG}`.slice(0, 2000),
            voice_id: 'voice_espeak.en-us',
            format,
            stream: true,
          })
        ).firstByteMs,
      );
    if (i % 2) {
      await whole();
      await stream();
    } else {
      await stream();
      await whole();
    }
  }
  const value = median(streamed) / median(alone);
  return {
    metric: `first byte of a streamed 2,000-char ${format} text vs a whole POST /tts of its first sentence (${median(streamed).toFixed(1)} vs ${median(alone).toFixed(1)} ms)`,
    value,
    unit: 'ratio',
    target: '≤ 1.0',
    pass: value <= 1.0,
  };
}

/** Ordinary sentences of many shapes: how often a one-sentence file can be encoded while its engine runs. */
const VARIED = [
  'Polyvox turns written text into natural speech for podcasts, lessons, games and accessible apps.',
  'The morning train left the station slowly, carrying travellers towards the distant mountains.',
  'Hello there.',
  'Is this working?',
  'Yes, it is!',
  'Please call me back at five thirty tomorrow afternoon.',
  'She sells sea shells by the sea shore, and the shells she sells are surely sea shells.',
  'Oh no, not again.',
  'What a wonderful world this would be if everyone just got along.',
  'Seven hundred and twenty three thousand, four hundred and ninety one.',
  'Zebras zigzag zealously across the plain.',
  'I am here.',
  'The quick brown fox jumps over the lazy dog.',
  'Thank you very much for your purchase; your order will ship within two business days.',
  'Rain fell softly on the quiet village all night long.',
  'Can you hear me now?',
  'A journey of a thousand miles begins with a single step.',
  'Turn left at the next corner, then go straight on.',
  'Our meeting starts at nine sharp, so please be on time.',
  'Fresh bread smells wonderful in the early morning.',
];

/**
 * One-sentence mp3 files gained with the voice's learnt loudness gain and encoded while the engine
 * ran, over varied sentences (the rest missed the ±0.5 LU tolerance and were encoded again).
 */
async function encodedAhead(speech: Speech): Promise<Row> {
  let ahead = 0;
  let n = 0;
  for (const voiceId of ['espeak:en-us', 'espeak:en-us+f3']) {
    for (let round = 0; round < 2; round++)
      for (const text of VARIED) {
        // The same sentences again in the second round: the cache is off, so each is synthesized.
        const r = await speech.synthesize({ text, voiceId, format: 'mp3' });
        n += 1;
        if (r.encodedAhead) ahead += 1;
      }
  }
  return {
    metric: `one-sentence mp3 files encoded while eSpeak ran (${ahead} of ${n} varied sentences, 2 voices; the rest normalized after and encoded again)`,
    value: ahead / n,
    unit: 'share',
  };
}

async function latencyUnderLoad(s: BenchServer): Promise<Row> {
  let running = true;
  let synthesized = 0;
  const load = async (n: number) => {
    for (let i = 0; running; i++) {
      await tts(s, {
        text: `${LONG.slice(0, 600)} ${n}-${i}`,
        voice_id: i % 2 ? 'voice_flite.slt' : 'voice_espeak.en-us',
        format: 'mp3',
      });
      synthesized += 1;
    }
  };
  const loops = [load(1), load(2), load(3)];
  await new Promise((r) => setTimeout(r, 500));
  const latencies: number[] = [];
  for (let i = 0; i < 400; i++) {
    const { ms } = await time(async () => {
      const res = await fetch(`${s.url}/accounts/me`, { headers: { 'x-sid': s.sid } });
      await res.arrayBuffer();
    });
    latencies.push(ms);
    await new Promise((r) => setTimeout(r, 5));
  }
  running = false;
  await Promise.all(loops);
  const value = quantile(latencies, 0.99);
  return {
    metric: `p99 GET /accounts/me while synthesizing (${latencies.length} calls, ${synthesized} syntheses, p50 ${median(latencies).toFixed(1)} ms)`,
    value,
    unit: 'ms',
    target: '≤ 20',
    pass: value <= 20,
  };
}

async function cache(s: BenchServer): Promise<Row> {
  const body = { text: LONG.slice(0, 800), voice_id: 'voice_flite.slt', format: 'mp3' };
  const miss = await tts(s, body);
  if (miss.cache !== 'miss') throw new Error('expected a cache miss first');
  const hits: number[] = [];
  for (let i = 0; i < 20; i++) {
    const hit = await tts(s, body);
    if (hit.cache !== 'hit') throw new Error('expected a cache hit');
    hits.push(hit.ms);
  }
  const value = miss.ms / median(hits);
  return {
    metric: `cache: miss ${miss.ms.toFixed(0)} ms vs hit ${median(hits).toFixed(1)} ms (800 chars)`,
    value,
    unit: '× faster',
    target: '≥ 50',
    pass: value >= 50,
  };
}

async function main() {
  const started = new Date();
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  const ratiosOnly = only === 'ratios';
  // `--only usage`: the records and statistics queries at a million records, on both databases, alone.
  if (only === 'usage') return report(started, await usageRows(), 'usage');
  // `--only transfer`: bytes over the wire for a cold home and usage page in headless Chromium (compression, caching).
  if (only === 'transfer') return report(started, await (await import('./transfer.js')).transferRows(), 'transfer');
  // `--only start`: compiled build against tsx, start time and memory; `--only sizing`: syntheses per second per worker core.
  if (only === 'start') return report(started, await startRows(), 'start');
  if (only === 'first-stream') return report(started, await firstStreamBenchRows(), 'first-stream');
  if (only === 'sizing') return report(started, await sizingRows(), 'sizing');
  // `--only scale`: API and worker processes on PostgreSQL and Redis: throughput 1 vs 2 workers, queue overhead, API p99.
  if (only === 'scale') return report(started, await scaleRows(), 'scale');
  // `--only studio`: a ~100,000-character book with three voices converted by one and by two worker processes; regenerate.
  if (only === 'studio') return report(started, await (await import('./studio.js')).studioRows(), 'studio');
  // `--only models`: each tiny model layout's discovery cost, first synthesis, real-time factor and memory; 50 folders found.
  if (only === 'models') return report(started, await (await import('./models.js')).modelsRows(), 'models');
  // `--only c2pa`: signing and reading C2PA manifests (wasm load, a ~6 s mp3, a ~60 s wav).
  if (only === 'c2pa') return report(started, await (await import('./c2pa.js')).c2paRows(), 'c2pa');
  // `--only timings`: the generic aligner's error against eSpeak NG's own word events, and what timings cost per engine.
  if (only === 'timings') return report(started, await (await import('./timings.js')).timingsRows(), 'timings');
  // `--only pauses`: the silence between sentences (and at a clause, a comma, a paragraph) per engine, native and Polyvox's.
  if (only === 'pauses') return report(started, await (await import('./pauses.js')).pausesRows(), 'pauses');
  // `--only pronunciation`: the pronunciation test set per built-in engine (eSpeak NG judged by the phonemes it speaks).
  if (only === 'pronunciation')
    return report(started, await (await import('./pronunciation.js')).pronunciationRows(), 'pronunciation');
  // `--only watermark`: the audio watermark's robustness, false positives, inaudibility and cost (WM_CLIPS clips, default 200).
  // `--only ws`: ElevenLabs' realtime WebSocket: first audio of a flushed sentence vs POST /tts, and 50 sockets at once.
  if (only === 'ws') return report(started, await (await import('./realtime.js')).realtimeRows(), 'ws');
  // `--only pause-memory`: the server's peak memory for the worst document the pause budget accepts, per route and format.
  if (only === 'pause-memory')
    return report(started, await (await import('./pause-memory.js')).pauseMemoryRows(), 'pause-memory');
  // `--only studio-export`: the peak memory of a whole book's M4B export (about 100,000 characters, two hours of audio).
  if (only === 'studio-export')
    return report(started, await (await import('./studio-export.js')).studioExportRows(), 'studio-export');
  // `--only ws-cpu`: the server's CPU per credit, 3,000 one-character flushes against 5,000 plain messages.
  if (only === 'ws-cpu') return report(started, await (await import('./realtime.js')).realtimeCpuRows(), 'ws-cpu');
  // `--only responsiveness`: p99 of GET /accounts/me with eight syntheses running, and a stream's first byte.
  if (only === 'responsiveness')
    return report(started, await (await import('./responsiveness.js')).responsivenessRows(), 'responsiveness');
  // `--only voiceprint`: the protected-voice check's false accepts and rejects on human and synthetic speakers.
  if (only === 'voiceprint') return report(started, await (await import('./voiceprint.js')).voiceprintRows(), 'voiceprint');
  if (only === 'watermark') return report(started, await (await import('./watermark.js')).watermarkRows(), 'watermark');
  // `--only moderation`: refusal rates on the ordinary and prohibited sets, and the time the step adds to a request.
  if (only === 'moderation') return report(started, await (await import('./moderation.js')).moderationRows(), 'moderation');
  const designOnly = only === 'design';
  const rows: Row[] = [];
  // `--only design` measures the voice-design rows alone: no server, no bundle.
  if (designOnly) {
    const speech = await createSpeech({ cache: false });
    try {
      rows.push(...(await designRows(speech)));
    } finally {
      await speech.close();
    }
  } else {
    // Built first, from the current sources, so the row measures what a visitor would load now.
    const bundle = ratiosOnly ? null : bundleRow(measureBundle(undefined, { build: true }));
    const server = await startServer();
    const speech = await createSpeech({ cache: false });
    // `--only ratios` measures the floor and first-byte rows alone, to compare a change quickly.
    if (bundle) rows.push(bundle);
    try {
      if (!ratiosOnly) rows.push(...(await engineRtf(speech)));
      const floor = await createFloor();
      rows.push(...(await versusFloor(server, floor, 'mp3')));
      rows.push(...(await versusFloor(server, floor, 'opus')));
      rows.push(await firstByte(server, 'mp3'));
      rows.push(await firstByte(server, 'opus'));
      rows.push(await encodedAhead(speech));
      if (!ratiosOnly) {
        rows.push(await latencyUnderLoad(server));
        rows.push(await cache(server));
        rows.push(...(await designRows(speech)));
      }
    } finally {
      await speech.close();
      await server.stop();
    }
    // p99 of GET /accounts/me with eight syntheses running, and a stream's first byte (`--only responsiveness`).
    if (!ratiosOnly) rows.push(...(await (await import('./responsiveness.js')).responsivenessRows()));
    // Each tiny model layout's discovery cost at start and real-time factor, and 50 model folders found (`--only models`).
    if (!ratiosOnly) rows.push(...(await (await import('./models.js')).modelsRows()));
  }
  await report(started, rows);
}

async function report(started: Date, rows: Row[], name = 'bench'): Promise<void> {
  console.table(
    rows.map((r) => ({
      metric: r.metric,
      value: Number(r.value.toFixed(r.value < 1 ? 4 : 2)),
      unit: r.unit,
      target: r.target ?? '',
      result: r.pass === undefined ? '' : r.pass ? 'pass' : 'MISS',
    })),
  );
  const dir = path.join(import.meta.dirname, 'results');
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const report = {
    started_at: started.toISOString(),
    node: process.version,
    cpus: (await import('node:os')).availableParallelism(),
    rows,
  };
  await fs.writeFile(file, JSON.stringify(report, null, 2));
  await fs.writeFile(path.join(dir, name === 'bench' ? 'latest.json' : `${name}-latest.json`), JSON.stringify(report, null, 2));
  console.log(`written ${path.relative(process.cwd(), file)}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
