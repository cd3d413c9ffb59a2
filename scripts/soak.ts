/**
 * npm run soak [-- --minutes N] [--clients N]: the platform on 127.0.0.1 with a temporary DATA_DIR
 * (SQLite) under a mixed workload for a set time (default 10 minutes), then it stops by itself.
 * Reports the error rate, p50/p99 latency per kind of request, and the server's RSS, open file
 * descriptors and child processes at start and at end; writes bench/results/soak.json.
 * Not part of CI. Every request goes to the loopback server this script started, and every loop
 * is bounded by the deadline and a per-request timeout.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { waitUntilReady } from '../bench/wait.js';
import { freePort } from '../bench/server.js';

const root = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, clients: { type: 'string', default: '6' } },
});
const minutes = Number(args.minutes);
const clients = Math.max(1, Math.min(32, Number(args.clients)));
if (!(minutes > 0 && minutes <= 24 * 60)) throw new Error('--minutes must be between 0 and 1440');

const SENTENCES = [
  'The morning train left the station slowly, carrying travellers towards the distant mountains.',
  'Polyvox turns written text into natural speech for podcasts, lessons, games and accessible apps.',
  'On the third of May, 2024, the museum welcomed 1,250 visitors before noon.',
  'Could you read this question aloud, and then pause for a moment?',
  'A small boat drifted across the quiet lake while the sun went down behind the hills.',
];
const VOICES = ['voice_espeak.en-us', 'voice_espeak.en-gb-x-rp', 'voice_flite.slt'];

interface Sample {
  at: number;
  rssMb: number;
  fds: number;
  children: number;
  childCommands: string[];
}

const latencies = new Map<string, number[]>();
const errors = new Map<string, number>();
const errorExamples: string[] = [];

function record(kind: string, ms: number, ok: boolean, detail = ''): void {
  if (!latencies.has(kind)) latencies.set(kind, []);
  latencies.get(kind)!.push(ms);
  if (!ok) {
    errors.set(kind, (errors.get(kind) ?? 0) + 1);
    if (errorExamples.length < 20) errorExamples.push(`${kind}: ${detail}`.slice(0, 300));
  }
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const text = (sentences: number) =>
  Array.from({ length: sentences }, () => pick(SENTENCES)).join(' ') + ` ${Math.random().toString(36).slice(2, 8)}.`;

/** The processes below the server's (children, their children …), by command name, from /proc. */
async function descendants(pid: number): Promise<string[]> {
  const parents = new Map<number, number>();
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields start after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      /* exited meanwhile */
    }
  }
  const names: string[] = [];
  const below = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parents)
      if (below.has(parent) && !below.has(child)) {
        below.add(child);
        grew = true;
        const cmd = await fs.readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '');
        names.push(path.basename(cmd.split('\0')[0] ?? '') || String(child));
      }
  }
  return names.sort();
}

async function sample(pid: number, t0: number): Promise<Sample> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  const children = await descendants(pid);
  return {
    at: Math.round((performance.now() - t0) / 1000),
    rssMb: Math.round(rssKb / 102.4) / 10,
    fds: (await fs.readdir(`/proc/${pid}/fd`)).length,
    children: children.length,
    childCommands: children,
  };
}

async function main(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-soak-'));
  // Anonymous accounts get a trial large enough that the workload never runs out of credits.
  const credits = JSON.parse(await fs.readFile(path.join(root, 'apps/server/config/credits.json'), 'utf8'));
  credits.anonymous_trial = 1_000_000_000;
  await fs.writeFile(path.join(dataDir, 'credits.json'), JSON.stringify(credits));
  // Its jobs read up to 1,400 characters: the anonymous accounts' (free) plan allows the subscribers' 5,000 here.
  const products = JSON.parse(await fs.readFile(path.join(root, 'apps/server/config/products.json'), 'utf8')) as {
    plans: { plan: string; privileges: { max_text_length: number } }[];
  };
  for (const p of products.plans) if (p.plan === 'free') p.privileges.max_text_length = 5000;
  await fs.writeFile(path.join(dataDir, 'products.json'), JSON.stringify(products));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      CREDITS_CONFIG: path.join(dataDir, 'credits.json'),
      PRODUCTS_CONFIG: path.join(dataDir, 'products.json'),
      // Every soak client is 127.0.0.1: the per-address account and trial limits would starve all but the first few.
      ACCOUNT_LIMIT_PER_IP_HOUR: '1000000',
      TRIAL_GRANTS_PER_IP_DAY: '1000000',
      LOG_LEVEL: 'warn',
      WEB_DIST: path.join(dataDir, 'none'),
      PREVIEW_PRERENDER: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    server.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000))]);
    if (code === 'timeout') server.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  try {
    await waitUntilReady(url, 600);
    const t0 = performance.now();
    const samples: Sample[] = [await sample(server.pid!, t0)];
    const deadline = Date.now() + minutes * 60_000;
    let requests = 0;

    async function call(
      kind: string,
      pathname: string,
      init: { method?: string; sid?: string; body?: unknown; abortAfterFirstChunk?: boolean } = {},
    ): Promise<{ status: number; json?: any }> {
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(new Error('timed out after 120 s')), 120_000);
      const start = performance.now();
      requests++;
      try {
        const res = await fetch(`${url}${pathname}`, {
          method: init.method ?? 'GET',
          headers: {
            ...(init.body ? { 'content-type': 'application/json' } : {}),
            ...(init.sid ? { 'x-sid': init.sid } : {}),
          },
          ...(init.body ? { body: JSON.stringify(init.body) } : {}),
          signal: ctrl.signal,
        });
        let json: any;
        if (init.abortAfterFirstChunk && res.ok) {
          const reader = res.body!.getReader();
          await reader.read();
          ctrl.abort(new Error('client left'));
          record(kind, performance.now() - start, true);
          return { status: res.status };
        }
        if ((res.headers.get('content-type') ?? '').includes('json')) json = await res.json();
        else await res.arrayBuffer();
        record(kind, performance.now() - start, res.ok, res.ok ? '' : `${res.status} ${JSON.stringify(json)}`);
        return { status: res.status, json };
      } catch (e) {
        record(kind, performance.now() - start, false, (e as Error).message);
        return { status: 0 };
      } finally {
        clearTimeout(timer);
      }
    }

    async function newAccount(n: number): Promise<string | undefined> {
      const r = await call('POST /accounts/anonymous', '/accounts/anonymous', {
        method: 'POST',
        body: { device: { udid: `web-soak-${n}-${Date.now()}`, model: 'soak', brand: 'other', os: 'other' } },
      });
      return r.json?.sid;
    }

    async function client(n: number): Promise<void> {
      let sid: string | undefined;
      for (let i = 0; Date.now() < deadline; i++) {
        // A fresh account every 25 requests: many accounts, as real traffic has.
        if (!sid || i % 25 === 0) sid = (await newAccount(n * 100_000 + i)) ?? sid;
        if (!sid) {
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        const voice_id = pick(VOICES);
        const roll = Math.random();
        if (roll < 0.15) await call('GET /accounts/me', '/accounts/me', { sid });
        else if (roll < 0.25) await call('GET /voice', `/voice?page_size=20&page=${1 + (i % 5)}`, { sid });
        else if (roll < 0.35)
          await call('POST /tts/estimate', '/tts/estimate', { method: 'POST', sid, body: { text: text(2), voice_id } });
        else if (roll < 0.7) {
          const format = pick(['mp3', 'wav', 'opus'] as const);
          const stream = Math.random() < 0.5;
          await call(`POST /tts ${format}${stream ? ' stream' : ''}`, '/tts', {
            method: 'POST',
            sid,
            body: { text: text(1 + (i % 3)), voice_id, format, stream },
          });
        } else if (roll < 0.8)
          await call('POST /tts stream, client leaves', '/tts', {
            method: 'POST',
            sid,
            body: { text: text(6), voice_id, format: pick(['mp3', 'opus']), stream: true },
            abortAfterFirstChunk: true,
          });
        else if (roll < 0.9)
          await call('POST /v1/audio/speech', '/v1/audio/speech', {
            method: 'POST',
            sid,
            body: { model: 'tts-1', input: text(1), voice: pick(['alloy', 'echo', 'nova']), response_format: 'mp3' },
          });
        else if (n === 0 && i % 40 === 1) {
          const job = await call('POST /tts/jobs', '/tts/jobs', {
            method: 'POST',
            sid,
            body: { text: text(16).slice(0, 1400), voice_id, format: 'mp3' },
          });
          for (let k = 0; job.json?.id && k < 120 && Date.now() < deadline; k++) {
            const j = await call('GET /tts/jobs/{id}', `/tts/jobs/${job.json.id}`, { sid });
            if (j.json?.status === 'succeeded') {
              await call('GET /tts/jobs/{id}/audio', `/tts/jobs/${job.json.id}/audio`, { sid });
              break;
            }
            if (j.status !== 200 || ['failed', 'cancelled'].includes(j.json?.status)) break;
            await new Promise((r) => setTimeout(r, 500));
          }
        } else await call('GET /healthz', '/healthz');
      }
    }

    const sampler = setInterval(() => {
      void sample(server.pid!, t0).then(
        (s) => samples.push(s),
        () => {},
      );
    }, 10_000);
    console.log(`soak: ${clients} clients for ${minutes} min against ${url}`);
    await Promise.all(Array.from({ length: clients }, (_, n) => client(n)));
    clearInterval(sampler);
    // Let released holds, closed streams and their encoders settle before the final count.
    await new Promise((r) => setTimeout(r, 3000));
    const healthy = (await fetch(`${url}/healthz`).catch(() => undefined))?.ok ?? false;
    const end = await sample(server.pid!, t0);
    samples.push(end);

    const routes = [...latencies.entries()].sort(([a], [b]) => a.localeCompare(b));
    const total = routes.reduce((n, [, xs]) => n + xs.length, 0);
    const failed = [...errors.values()].reduce((a, b) => a + b, 0);
    const report = {
      started_at: new Date(Date.now() - minutes * 60_000).toISOString(),
      minutes,
      clients,
      requests: total,
      errors: failed,
      error_rate: total ? failed / total : 0,
      healthy_at_end: healthy,
      routes: routes.map(([kind, xs]) => ({
        kind,
        count: xs.length,
        errors: errors.get(kind) ?? 0,
        p50_ms: Math.round(quantile(xs, 0.5) * 10) / 10,
        p99_ms: Math.round(quantile(xs, 0.99) * 10) / 10,
      })),
      server: { start: samples[0], end, samples },
      error_examples: errorExamples,
    };
    console.table(report.routes);
    console.table(
      [samples[0]!, end].map((x, i) => ({ when: i ? 'end' : 'start', ...x, childCommands: x.childCommands.join(' ') })),
    );
    console.log(
      `${total} requests, ${failed} errors (${(report.error_rate * 100).toFixed(2)} %), healthy at end: ${healthy}; issued ${requests}`,
    );
    if (errorExamples.length) console.log('first errors:\n  ' + errorExamples.join('\n  '));
    const dir = path.join(root, 'bench', 'results');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'soak.json'), JSON.stringify(report, null, 2));
    console.log('written bench/results/soak.json');
  } finally {
    await stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
