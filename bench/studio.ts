/**
 * Studio conversion (`npx tsx bench/run.ts --only studio`): a 100,961-character public-domain book
 * (fixtures/studio/annual-messages.md: Washington's and Adams's annual messages to Congress) with three voices on the
 * built-in engines (eSpeak NG for the narrator, Flite's two for the two presidents), converted by
 * one worker process and by two, on PostgreSQL and Redis behind one API process (ROLE=api), as bench/scale.ts runs
 * them. The whole project is converted at once (`POST …/convert`: a part per chapter, which the workers share). Rows:
 * wall time from the convert to the last chapter done, the audio made, the real-time factor (wall / audio), the
 * machine's load average (1 min) before and after each, and the time to regenerate one paragraph of the converted
 * project (the median of REGENERATIONS, each a paragraph of its own). `STUDIO_BENCH_CHARS=4000`: a short book instead,
 * the first paragraphs of the first four chapters up to about that many characters.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { buildServer, serverBuildIsCurrent } from '../scripts/build-server.mjs';
import { start, stop, type ScaleRow } from './scale.js';
import { median } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const VOICES = { narrator: 'voice_espeak.en-us', Washington: 'voice_flite.kal', Adams: 'voice_flite.slt' };
const REGENERATIONS = 11;
const SHORT_CHAPTERS = 4;

/** The book cut short: its title and, of its first chapters, the first paragraphs up to `chars` characters in all. */
export function shortBook(text: string, chars: number): string {
  const [head, ...chapters] = text.split(/\n(?=## )/);
  const each = Math.ceil(chars / SHORT_CHAPTERS);
  const kept = chapters.slice(0, SHORT_CHAPTERS).map((chapter) => {
    const [heading, ...paragraphs] = chapter.split(/\n\n+/);
    const out = [heading!];
    let n = 0;
    for (const p of paragraphs) {
      if (n > 0 && n + p.length > each) break;
      out.push(p);
      n += p.length;
    }
    return out.join('\n\n');
  });
  return [head!.split(/\n\n+/)[0]!, ...kept].join('\n\n') + '\n';
}

const load = () => Math.round(os.loadavg()[0]! * 100) / 100;

async function call(url: string, sid: string, method: string, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'x-sid': sid, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${url} ${res.status}: ${await res.text()}`);
  return res.headers.get('content-type')?.includes('json') ? res.json() : Buffer.from(await res.arrayBuffer());
}

/** Makes the book a project with its three voices; returns its id and chapters. */
async function project(api: string, sid: string, text: string, name: string) {
  const made = await call(`${api}/v1/studio/projects`, sid, 'POST', {
    name,
    text,
    text_format: 'markdown',
    default_paragraph_voice_id: VOICES.narrator,
  });
  const id = made.project.project_id as string;
  for (const speaker of ['Washington', 'Adams'] as const)
    await call(`${api}/v1/studio/projects/${id}/speakers`, sid, 'PUT', { speaker, voice_id: VOICES[speaker] });
  const got = await call(`${api}/v1/studio/projects/${id}`, sid, 'GET');
  return { id, chapters: (got.chapters as { chapter_id: string }[]).map((c) => c.chapter_id) };
}

/** Converts the whole project (one conversion) and waits for it: wall seconds, the audio's seconds, the load around it. */
async function convert(api: string, sid: string, db: pg.Client, p: { id: string; chapters: string[] }) {
  const loadBefore = load();
  const t0 = performance.now();
  const { job_id: job } = (await call(`${api}/v1/studio/projects/${p.id}/convert`, sid, 'POST')) as { job_id: string };
  for (;;) {
    const got = await call(`${api}/v1/studio/projects/${p.id}`, sid, 'GET');
    if (got.state === 'default') {
      if (!got.can_be_downloaded) throw new Error('conversion ended with paragraphs left');
      break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const wall = (performance.now() - t0) / 1000;
  const { rows } = await db.query<{ ms: string }>('SELECT SUM(audio_ms) AS ms FROM studio_paragraphs WHERE project_id = $1', [
    p.id,
  ]);
  // Which process ran each chapter's part (what its row recorded).
  const owners = await db.query<{ owner: string; parts: string }>(
    'SELECT owner, COUNT(*) AS parts FROM synthesis_jobs WHERE request LIKE $1 GROUP BY owner',
    [`%"parentId":"${job}"%`],
  );
  const parts = owners.rows.map((r) => Number(r.parts)).sort((a, b) => b - a);
  return { wall, audio: Number(rows[0]!.ms) / 1000, loadBefore, loadAfter: load(), parts };
}

export async function studioRows(): Promise<ScaleRow[]> {
  if (!serverBuildIsCurrent()) await buildServer({ quiet: true });
  const book = await fs.readFile(path.join(root, 'fixtures/studio/annual-messages.md'), 'utf8');
  const short = Number(process.env.STUDIO_BENCH_CHARS ?? 0);
  const text = short > 0 ? shortBook(book, short) : book;
  const name = `polyvox_bench_studio_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(PG_ADMIN);
  dbUrl.pathname = `/${name}`;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-studio-'));
  const run = Math.random().toString(36).slice(2, 10);
  const common = {
    DATA_DIR: dataDir,
    WEB_DIST: path.join(dataDir, 'none'),
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL,
    REDIS_PREFIX: `polyvox-bench-${run}:`,
    QUEUE_PREFIX: `polyvox-bench-${run}`,
    SECRET: `bench-studio-secret-${run}`,
    // No shared synthesis cache: each conversion and regeneration speaks (the workers are fresh for the second book).
    SYNTHESIS_CACHE_SECONDS: '0',
  };
  const children: ChildProcess[] = [];
  const rows: ScaleRow[] = [];
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  try {
    const api = await start({ ...common, ROLE: 'api' });
    children.push(api.child);
    const workers: ChildProcess[] = [];
    const worker = async () => {
      const w = await start({ ...common, ROLE: 'worker', SPEECH_WORKERS: '1', QUEUE_CONCURRENCY: '2' });
      children.push(w.child);
      workers.push(w.child);
      for (let i = 0; i < 1200; i++) {
        if (((await (await fetch(`${w.url}/healthz`)).json()) as { taking_work?: boolean }).taking_work) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the worker never took work');
    };
    await worker();
    const anon = (await (
      await fetch(`${api.url}/accounts/anonymous`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device: { udid: 'web-bench-studio', model: 'bench', brand: 'other', os: 'other' } }),
      })
    ).json()) as { sid: string; account: { id: string } };
    await db.connect();
    await db.query('UPDATE accounts SET credits = credits + 10000000 WHERE id = $1', [anon.account.id]);
    const sid = anon.sid;

    const one = await project(api.url, sid, text, 'Book, one worker');
    const first = await convert(api.url, sid, db, one);
    // Two fresh workers (nothing of the first book in their in-memory cache), the first one stopped.
    await stop(workers.pop()!);
    await Promise.all([worker(), worker()]);
    // Regenerating one paragraph of the converted project: its POST answered with its audio. REGENERATIONS paragraphs,
    // each once (none from the synthesis cache): taken in turn from each chapter, first paragraphs first.
    const byChapter: { block_id: string }[][] = [];
    for (const id of one.chapters)
      byChapter.push((await call(`${api.url}/v1/studio/projects/${one.id}/chapters/${id}`, sid, 'GET')).content.blocks);
    const blocks: { block_id: string }[] = [];
    for (let i = 0; blocks.length < REGENERATIONS && byChapter.some((c) => c.length > i); i++)
      for (const c of byChapter) if (c[i] && blocks.length < REGENERATIONS) blocks.push(c[i]!);
    const loadBefore = load();
    const times: number[] = [];
    for (const block of blocks) {
      const t0 = performance.now();
      await call(`${api.url}/v1/studio/projects/${one.id}/paragraphs/${block.block_id}/convert`, sid, 'POST');
      times.push(performance.now() - t0);
    }
    rows.push({
      metric: `Studio: regenerate one paragraph (median of ${times.length}, 2 workers idle)`,
      value: median(times),
      unit: 'ms',
    });
    rows.push({ metric: 'Studio: regenerate one paragraph, slowest', value: Math.max(...times), unit: 'ms' });
    rows.push({ metric: 'Studio: load average (1 min) before regenerating', value: loadBefore, unit: '' });
    rows.push({ metric: 'Studio: load average (1 min) after regenerating', value: load(), unit: '' });
    // The second book: its sentences end otherwise, so none of it comes from what the regenerations left in a cache.
    const two = await project(api.url, sid, text.replace(/\.$/gm, '!'), 'Book, two workers');
    const second = await convert(api.url, sid, db, two);
    for (const [label, r] of [
      ['1 worker process', first],
      ['2 worker processes', second],
    ] as const) {
      rows.push({ metric: `Studio: convert ${text.length} characters, 3 voices, ${label}: wall time`, value: r.wall, unit: 's' });
      rows.push({ metric: `Studio: audio made, ${label}`, value: r.audio, unit: 's' });
      rows.push({ metric: `Studio: real-time factor (wall / audio), ${label}`, value: r.wall / r.audio, unit: '×' });
      rows.push({ metric: `Studio: load average (1 min) before, ${label}`, value: r.loadBefore, unit: '' });
      rows.push({ metric: `Studio: load average (1 min) after, ${label}`, value: r.loadAfter, unit: '' });
      for (const [i, n] of r.parts.entries())
        rows.push({ metric: `Studio: chapters converted by worker ${i + 1}, ${label}`, value: n, unit: '' });
    }
  } finally {
    await db.end().catch(() => {});
    for (const child of children.reverse()) await stop(child);
    await fs.rm(dataDir, { recursive: true, force: true });
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
  return rows;
}
