/**
 * `npx tsx bench/run.ts --only ws`: ElevenLabs' realtime protocol on the real server process. The first audio
 * message of a sentence flushed on an open socket against one whole POST /tts of that sentence (interleaved), and 50
 * sockets at once, each speaking three sentences: every one must get all its audio, in order, and its `isFinal`.
 * `--only ws-cpu`: the server's CPU time per credit charged, for 3,000 one-character flushes against 5,000 plain
 * messages (a word each, cut by the default schedule).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import { startServer, type BenchServer } from './server.js';
import { median, quantile, type BenchRow } from './stats.js';

const VOICE = 'voice_espeak.en-us';
const SENTENCES = [
  'The morning train left the station slowly, carrying travellers towards the distant mountains.',
  'Please remember to bring your passport, your tickets and a warm coat for the evening walk.',
  'Have you ever wondered why the sky turns orange and red just before the sun goes down?',
];

interface Socket {
  ws: WebSocket;
  messages: any[];
  /** Resolves with the next message that `match` accepts. */
  next(match: (m: any) => boolean): Promise<any>;
  closed: Promise<number>;
}

function open(s: BenchServer, query = 'output_format=mp3_44100_128'): Promise<Socket> {
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/v1/text-to-speech/${VOICE}/stream-input?${query}`, {
    headers: { 'x-sid': s.sid },
  });
  const messages: any[] = [];
  const waiters: { match: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data));
    messages.push(m);
    const w = waiters.find((x) => x.match(m));
    if (w) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(m);
    }
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({ ws, messages, closed, next: (match) => new Promise((res) => waiters.push({ match, resolve: res })) }),
    );
  });
}

async function wholeTts(s: BenchServer, text: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}/tts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': s.sid },
    body: JSON.stringify({ text, voice_id: VOICE, format: 'mp3' }),
  });
  if (!res.ok) throw new Error(`POST /tts ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
  return performance.now() - t0;
}

/**
 * From `{text: sentence, flush: true}` on an open socket (its opening message sent) to its first audio message; the
 * socket is then ended and read to its close, so the next run starts on a quiet server.
 */
async function firstAudio(s: BenchServer, text: string, query: string): Promise<number> {
  const sock = await open(s, query);
  sock.ws.send(JSON.stringify({ text: ' ' }));
  const t0 = performance.now();
  const audio = sock.next((m) => typeof m.audio === 'string' || typeof m.error === 'string');
  sock.ws.send(JSON.stringify({ text: `${text} `, flush: true }));
  const m = await audio;
  if (m.error) throw new Error(`realtime error: ${m.message}`);
  const ms = performance.now() - t0;
  sock.ws.send(JSON.stringify({ text: '' }));
  if ((await sock.closed) !== 1000) throw new Error('the socket did not close normally');
  return ms;
}

async function latency(s: BenchServer, sync: boolean): Promise<BenchRow> {
  const query = `output_format=mp3_44100_128${sync ? '&sync_alignment=true' : ''}`;
  // Warm both paths.
  await firstAudio(s, `Warm ${SENTENCES[0]}`, query);
  await wholeTts(s, `Warm ${SENTENCES[1]}`);
  const ws: number[] = [];
  const http: number[] = [];
  const N = 12;
  for (let i = 0; i < N; i++) {
    const sentence = `${i}: ${SENTENCES[i % SENTENCES.length]}`;
    const a = async () => ws.push(await firstAudio(s, `Socket ${sync ? 'sync' : ''} ${sentence}`, query));
    const b = async () => http.push(await wholeTts(s, `Post ${sync ? 'sync' : ''} ${sentence}`));
    if (i % 2) {
      await a();
      await b();
    } else {
      await b();
      await a();
    }
  }
  const value = median(ws) / median(http);
  return {
    metric: `first audio of a sentence flushed on an open socket${sync ? ' with sync_alignment' : ''} vs a whole POST /tts of it, mp3 (${median(ws).toFixed(1)} vs ${median(http).toFixed(1)} ms; ${N} interleaved runs)`,
    value,
    unit: 'ratio',
    ...(sync ? {} : { target: '≤ 1.0', pass: value <= 1.0 }),
  };
}

/** 50 sockets at once, each three sentences in pieces: all audio, in order, `isFinal`, a normal close. */
async function fifty(s: BenchServer): Promise<BenchRow[]> {
  const N = 50;
  const t0 = performance.now();
  const firsts: number[] = [];
  const results = await Promise.all(
    Array.from({ length: N }, async (_, k) => {
      const sock = await open(s, 'output_format=pcm_16000&sync_alignment=true');
      const text = SENTENCES.map((x) => `${x.replace('.', ` ${k}.`)} `).join('');
      const start = performance.now();
      sock.ws.send(JSON.stringify({ text: ' ', generation_config: { chunk_length_schedule: [50] } }));
      for (const word of text.split(/(?<= )/)) sock.ws.send(JSON.stringify({ text: word }));
      sock.ws.send(JSON.stringify({ text: '' }));
      void sock.next((m) => typeof m.audio === 'string').then(() => firsts.push(performance.now() - start));
      const code = await sock.closed;
      const audio = sock.messages.filter((m) => typeof m.audio === 'string');
      const said = audio.map((m) => (m.alignment?.chars as string[]).join('')).join('');
      const bytes = audio.reduce((n, m) => n + Buffer.from(m.audio, 'base64').length, 0);
      const ok = code === 1000 && said === text && sock.messages.at(-1)?.isFinal === true && bytes > 0;
      return { ok, bytes };
    }),
  );
  const wall = performance.now() - t0;
  const ok = results.filter((r) => r.ok).length;
  return [
    {
      metric: `${N} sockets at once, 3 sentences each sent word by word: sockets with all their audio in order, isFinal and a normal close`,
      value: ok,
      unit: `of ${N}`,
      target: `= ${N}`,
      pass: ok === N,
    },
    { metric: `${N} sockets at once: wall time to the last close`, value: wall, unit: 'ms' },
    { metric: `${N} sockets at once: first audio p50`, value: median(firsts), unit: 'ms' },
    { metric: `${N} sockets at once: first audio p95`, value: quantile(firsts, 0.95), unit: 'ms' },
  ];
}

/** CPU seconds (user + system) of a process and every process under it, from /proc (Linux). */
function treeCpuSeconds(root: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const name of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The fields after the command's closing parenthesis: state, ppid, … utime (14th), stime (15th).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, s] of stats)
      if (!tree.has(pid) && tree.has(s.ppid)) {
        tree.add(pid);
        grew = true;
      }
  }
  let ticks = 0;
  for (const pid of tree) ticks += stats.get(pid)?.ticks ?? 0;
  return ticks / 100;
}

async function credits(s: BenchServer): Promise<number> {
  const me = (await (await fetch(`${s.url}/accounts/me`, { headers: { 'x-sid': s.sid } })).json()) as any;
  return me.vip.credits as number;
}

/** One socket sent `messages`, then its end: the server's CPU seconds and the credits charged for it. */
async function cpuPerCredit(s: BenchServer, messages: object[]): Promise<{ cpu: number; credits: number; audio: number }> {
  const before = await credits(s);
  const cpu0 = treeCpuSeconds(s.pid);
  const sock = await open(s, 'output_format=pcm_16000');
  sock.ws.send(JSON.stringify({ text: ' ' }));
  for (const m of messages) sock.ws.send(JSON.stringify(m));
  sock.ws.send(JSON.stringify({ text: '' }));
  if ((await sock.closed) !== 1000) throw new Error(`the socket did not close normally: ${JSON.stringify(sock.messages.at(-1))}`);
  const cpu = treeCpuSeconds(s.pid) - cpu0;
  // Settled once its last message is out: the balance is read once no hold is left (it stops moving).
  let charged = before - (await credits(s));
  for (let last = -1; charged !== last; charged = before - (await credits(s))) {
    last = charged;
    await new Promise((r) => setTimeout(r, 200));
  }
  const audio = sock.messages.filter((m) => typeof m.audio === 'string').length;
  return { cpu, credits: charged, audio };
}

/** The server's CPU per credit: 3,000 one-character flushes against 5,000 plain messages. */
export async function realtimeCpuRows(): Promise<BenchRow[]> {
  const server = await startServer();
  try {
    // Warm the engines and the path.
    await cpuPerCredit(server, [{ text: 'Warming up. ', flush: true }]);
    const words = ['the', 'morning', 'train', 'left', 'slowly', 'towards', 'distant', 'mountains.'];
    const plain = await cpuPerCredit(
      server,
      Array.from({ length: 5000 }, (_, i) => ({ text: `${words[i % words.length]} ` })),
    );
    const flushes = await cpuPerCredit(
      server,
      Array.from({ length: 3000 }, (_, i) => ({ text: 'abcdefghij'[i % 10], flush: true })),
    );
    const per = (r: { cpu: number; credits: number }) => (r.cpu * 1000) / r.credits;
    const ratio = per(flushes) / per(plain);
    return [
      {
        metric: `ws: 5,000 plain messages (a word each, default schedule): server CPU per credit (${plain.cpu.toFixed(1)} s for ${plain.credits} credits, ${plain.audio} audio messages)`,
        value: per(plain),
        unit: 'ms/credit',
      },
      {
        metric: `ws: 3,000 one-character flushes: server CPU per credit (${flushes.cpu.toFixed(1)} s for ${flushes.credits} credits, ${flushes.audio} audio messages)`,
        value: per(flushes),
        unit: 'ms/credit',
      },
      {
        metric: 'ws: CPU per credit, one-character flushes against plain messages',
        value: ratio,
        unit: 'ratio',
        target: '≤ 1.0',
        pass: ratio <= 1,
      },
      {
        metric:
          'ws: CPU per credit the one-character flushes would buy charged a character each (no minimum), against plain messages',
        value: (flushes.cpu * 1000) / 3000 / per(plain),
        unit: 'ratio',
      },
    ];
  } finally {
    await server.stop();
  }
}

export async function realtimeRows(): Promise<BenchRow[]> {
  const server = await startServer();
  try {
    return [await latency(server, false), await latency(server, true), ...(await fifty(server))];
  } finally {
    await server.stop();
  }
}
