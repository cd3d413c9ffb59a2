/**
 * Studio conversion (`npx tsx bench/run.ts --only studio`): a ~100,000-character book (fixtures/studio/printing.md)
 * with three voices on the built-in engines (eSpeak NG for the narrator, Flite's two for the readers), converted by
 * one worker process and by two, on PostgreSQL and Redis behind one API process (ROLE=api), as bench/scale.ts runs
 * them. Each chapter is converted as its own job (`POST …/chapters/{id}/convert`), so two workers share a book. Rows:
 * wall time from the first convert to the last chapter done, the audio made, the real-time factor (wall / audio), and
 * the time to regenerate one paragraph of the converted project.
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
const VOICES = { narrator: 'voice_espeak.en-us', Anna: 'voice_flite.slt', Tom: 'voice_flite.kal' };

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
  for (const speaker of ['Anna', 'Tom'] as const)
    await call(`${api}/v1/studio/projects/${id}/speakers`, sid, 'PUT', { speaker, voice_id: VOICES[speaker] });
  const got = await call(`${api}/v1/studio/projects/${id}`, sid, 'GET');
  return { id, chapters: (got.chapters as { chapter_id: string }[]).map((c) => c.chapter_id) };
}

/** Converts every chapter (a job each) and waits for all: wall seconds and the audio's seconds. */
async function convert(api: string, sid: string, db: pg.Client, p: { id: string; chapters: string[] }) {
  const t0 = performance.now();
  for (const chapter of p.chapters) await call(`${api}/v1/studio/projects/${p.id}/chapters/${chapter}/convert`, sid, 'POST');
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
  return { wall, audio: Number(rows[0]!.ms) / 1000 };
}

export async function studioRows(): Promise<ScaleRow[]> {
  if (!serverBuildIsCurrent()) await buildServer({ quiet: true });
  const text = await fs.readFile(path.join(root, 'fixtures/studio/printing.md'), 'utf8');
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
  };
  const children: ChildProcess[] = [];
  const rows: ScaleRow[] = [];
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  try {
    const api = await start({ ...common, ROLE: 'api' });
    children.push(api.child);
    const worker = async () => {
      const w = await start({ ...common, ROLE: 'worker', SPEECH_WORKERS: '1', QUEUE_CONCURRENCY: '2' });
      children.push(w.child);
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
    await worker();
    const two = await project(api.url, sid, text, 'Book, two workers');
    const second = await convert(api.url, sid, db, two);
    for (const [label, r] of [
      ['1 worker process', first],
      ['2 worker processes', second],
    ] as const) {
      rows.push({ metric: `Studio: convert ${text.length} characters, 3 voices, ${label}: wall time`, value: r.wall, unit: 's' });
      rows.push({ metric: `Studio: audio made, ${label}`, value: r.audio, unit: 's' });
      rows.push({ metric: `Studio: real-time factor (wall / audio), ${label}`, value: r.wall / r.audio, unit: '×' });
    }
    // Regenerating one paragraph of the converted project: its POST answered with its audio.
    // The first paragraph of each of five chapters (the book's first chapter is its one-paragraph preface).
    const blocks: { block_id: string }[] = [];
    for (const id of one.chapters.slice(1, 6))
      blocks.push((await call(`${api.url}/v1/studio/projects/${one.id}/chapters/${id}`, sid, 'GET')).content.blocks[0]);
    const times: number[] = [];
    for (const block of blocks.slice(0, 5)) {
      const t0 = performance.now();
      await call(`${api.url}/v1/studio/projects/${one.id}/paragraphs/${block.block_id}/convert`, sid, 'POST');
      times.push(performance.now() - t0);
    }
    rows.push({
      metric: `Studio: regenerate one paragraph (median of ${times.length}, 2 workers idle)`,
      value: median(times),
      unit: 'ms',
    });
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
