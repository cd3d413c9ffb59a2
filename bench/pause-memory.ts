/**
 * `npx tsx bench/run.ts --only pause-memory`: the server's peak memory for the worst document the pause budget
 * accepts (`apps/server/src/pronunciation/pause-budget.ts`: 60 s of breaks, the ceiling, on the fewest characters that
 * reach it), on every route and format: POST /tts whole and streamed, a job (made, then downloaded), `/v1/audio/speech`,
 * ElevenLabs' route (SSML and its plain-text breaks) and the realtime socket.
 *
 * One server process (SQLite, fresh DATA_DIR). Before each case its peak (VmHWM) is reset (`clear_refs` 5), so the
 * row's peak is that case's own; the resident memory before and a second after are read too (what a request leaves
 * behind), and the peak of its child processes (ffmpeg, engine hosts), sampled every 20 ms. `PAUSE_DOC=old` sends the
 * document the budget now refuses (300 breaks of 10 s) to `POST /tts` as mp3 alone: what one request took before.
 */
import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { startServer, type BenchServer } from './server.js';
import type { BenchRow } from './stats.js';

const VOICE = 'voice_espeak.en-us';
/** 120 priced characters: the budget's 60 s ceiling (3 s + 0.5 s × 114 characters) and a little over. */
const WORDS = 'Breathe in slowly and hold it. '.repeat(5).trim();
const SSML = `<speak>${WORDS}${'<break time="10s"/>'.repeat(6)}</speak>`;
/** ElevenLabs' breaks in plain text: 20 of 3 s. */
const PLAIN = `${WORDS} ${'<break time="3s" />'.repeat(20)}`;
/** What the budget now refuses: 300 breaks of 10 s around two words. */
const OLD = `<speak>Hello ${'<break time="10s"/>'.repeat(300)} world</speak>`;

const MB = 1024 * 1024;

/** A /proc status field in kB, as bytes (0 when the process is gone). */
async function status(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const text = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Every process below `pid`. */
async function descendants(pid: number): Promise<number[]> {
  const out: number[] = [];
  const tasks = await fs.readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const task of tasks) {
    const children = await fs.readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const c of children.split(/\s+/).filter(Boolean).map(Number)) out.push(c, ...(await descendants(c)));
  }
  return out;
}

/** The peak of the children's summed resident memory while `run` runs, sampled. */
async function withChildPeak<T>(pid: number, run: () => Promise<T>): Promise<{ value: T; childPeak: number }> {
  let childPeak = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      let sum = 0;
      for (const c of await descendants(pid)) sum += await status(c, 'VmRSS');
      childPeak = Math.max(childPeak, sum);
      await sleep(20);
    }
  })();
  try {
    return { value: await run(), childPeak };
  } finally {
    done = true;
    await sampler;
  }
}

async function post(s: BenchServer, path: string, body: unknown): Promise<Response> {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': s.sid },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path} ${res.status}: ${await res.text()}`);
  return res;
}

/** Reads a response to its end; its size in bytes. */
async function drain(res: Response): Promise<number> {
  let bytes = 0;
  for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
  return bytes;
}

async function job(s: BenchServer, format: string): Promise<number> {
  const created = (await (await post(s, '/tts/jobs', { text: SSML, voice_id: VOICE, format })).json()) as { id: string };
  for (;;) {
    const j = (await (await fetch(`${s.url}/tts/jobs/${created.id}`, { headers: { 'x-sid': s.sid } })).json()) as {
      status: string;
      audio_url: string | null;
    };
    if (j.status === 'succeeded') return drain(await fetch(`${s.url}${j.audio_url}`, { headers: { 'x-sid': s.sid } }));
    if (j.status === 'failed' || j.status === 'canceled') throw new Error(`job ${j.status}`);
    await sleep(100);
  }
}

/** A realtime piece at the budget's ceiling, flushed after the words that pay for it; the bytes of audio that came back. */
async function socket(s: BenchServer, outputFormat: string): Promise<number> {
  const ws = new WebSocket(
    `${s.url.replace(/^http/, 'ws')}/v1/text-to-speech/${VOICE}/stream-input?output_format=${outputFormat}`,
    { headers: { 'x-sid': s.sid } },
  );
  let bytes = 0;
  const done = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { audio?: string; isFinal?: boolean; error?: string; message?: string };
      if (typeof m.audio === 'string') bytes += Buffer.from(m.audio, 'base64').length;
      if (m.error) reject(new Error(`${m.error}: ${m.message}`));
      if (m.isFinal) resolve();
    });
    ws.once('error', reject);
  });
  await new Promise<void>((resolve, reject) => ws.once('open', resolve).once('error', reject));
  // Pieces as sent (a piece of breaks alone is not spoken): the words, then one word and 60 s of breaks they paid for.
  ws.send(JSON.stringify({ text: ' ', generation_config: { chunk_length_schedule: [500] } }));
  ws.send(JSON.stringify({ text: WORDS, flush: true }));
  ws.send(JSON.stringify({ text: `Now. ${'<break time="3s" />'.repeat(20)}`, flush: true }));
  ws.send(JSON.stringify({ text: '' }));
  await done;
  ws.close();
  return bytes;
}

interface Case {
  route: string;
  format: string;
  run: (s: BenchServer) => Promise<number>;
}

const FORMATS = ['mp3', 'wav', 'opus', 'pcm'] as const;
const ELEVEN = { mp3: 'mp3_44100_128', wav: 'wav_24000', opus: 'opus_48000_64', pcm: 'pcm_24000' } as const;

function cases(): Case[] {
  if (process.env.PAUSE_DOC === 'old')
    return [
      {
        route: 'POST /tts (300 × 10 s, now refused)',
        format: 'mp3',
        run: async (s) => drain(await post(s, '/tts', { text: OLD, voice_id: VOICE, format: 'mp3' })),
      },
    ];
  const out: Case[] = [];
  for (const format of FORMATS) {
    out.push({
      route: 'POST /tts',
      format,
      run: async (s) => drain(await post(s, '/tts', { text: SSML, voice_id: VOICE, format })),
    });
    out.push({
      route: 'POST /tts stream',
      format,
      run: async (s) => drain(await post(s, '/tts', { text: SSML, voice_id: VOICE, format, stream: true })),
    });
    out.push({ route: 'POST /tts/jobs + audio', format, run: (s) => job(s, format) });
    out.push({
      route: '/v1/audio/speech',
      format,
      run: async (s) =>
        drain(await post(s, '/v1/audio/speech', { model: 'tts-1', voice: VOICE, input: SSML, response_format: format })),
    });
    out.push({
      route: 'ElevenLabs /v1/text-to-speech',
      format: ELEVEN[format],
      run: async (s) => drain(await post(s, `/v1/text-to-speech/${VOICE}?output_format=${ELEVEN[format]}`, { text: SSML })),
    });
    out.push({
      route: 'ElevenLabs …/stream, plain-text breaks',
      format: ELEVEN[format],
      run: async (s) =>
        drain(await post(s, `/v1/text-to-speech/${VOICE}/stream?output_format=${ELEVEN[format]}`, { text: PLAIN })),
    });
    if (format === 'mp3' || format === 'pcm')
      out.push({ route: 'WebSocket stream-input', format: ELEVEN[format], run: (s) => socket(s, ELEVEN[format]) });
  }
  out.push({
    route: 'POST /tts timestamps (JSON)',
    format: 'mp3',
    run: async (s) => drain(await post(s, '/tts', { text: SSML, voice_id: VOICE, format: 'mp3', timestamps: true })),
  });
  return out;
}

export async function pauseMemoryRows(): Promise<BenchRow[]> {
  const s = await startServer();
  const rows: BenchRow[] = [];
  const table: Record<string, string | number>[] = [];
  try {
    const pid = s.pid;
    // Warm: the engines, encoders and signer are loaded before anything is measured.
    for (const format of FORMATS)
      await drain(await post(s, '/tts', { text: `<speak>Warm up ${format}.</speak>`, voice_id: VOICE, format }));
    for (const c of cases()) {
      const before = await status(pid, 'VmRSS');
      await fs.writeFile(`/proc/${pid}/clear_refs`, '5');
      const t0 = performance.now();
      const { value: bytes, childPeak } = await withChildPeak(pid, () => c.run(s));
      const seconds = (performance.now() - t0) / 1000;
      const peak = await status(pid, 'VmHWM');
      await sleep(1000);
      const after = await status(pid, 'VmRSS');
      const name = `${c.route} ${c.format}`;
      const row = {
        case: name,
        'output MB': Number((bytes / 1e6).toFixed(2)),
        'RSS before MB': Math.round(before / MB),
        'peak MB': Math.round(peak / MB),
        'peak − before MB': Math.round((peak - before) / MB),
        'after 1 s MB': Math.round(after / MB),
        'children peak MB': Math.round(childPeak / MB),
        s: Number(seconds.toFixed(1)),
      };
      table.push(row);
      console.log(JSON.stringify(row));
      rows.push({ metric: `peak RSS: ${name}`, value: peak / MB, unit: 'MB' });
      rows.push({ metric: `peak over before: ${name}`, value: (peak - before) / MB, unit: 'MB' });
      rows.push({ metric: `children peak: ${name}`, value: childPeak / MB, unit: 'MB' });
      rows.push({ metric: `RSS 1 s after: ${name}`, value: after / MB, unit: 'MB' });
    }
  } finally {
    await s.stop();
  }
  console.table(table);
  return rows;
}
