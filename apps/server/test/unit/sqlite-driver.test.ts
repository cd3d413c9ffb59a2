import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/platform/db/database.js';
import { openSqlite, sqliteDriverFor, STATEMENT_CACHE } from '../../src/platform/db/sqlite-driver.js';

// A full collection now; the tiers on Node 22 and 24 (scripts/test-node-versions.mjs) run this file too.
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

describe('the SQLite driver', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-sqlite-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['20.19.0', 'better-sqlite3'],
    ['20.20.2', 'better-sqlite3'],
    ['22.23.3', 'better-sqlite3'],
    ['24.0.0', 'node:sqlite'],
    ['24.21.0', 'node:sqlite'],
    ['26.1.0', 'node:sqlite'],
  ])('on Node %s is %s', (version, driver) => {
    expect(sqliteDriverFor(version)).toBe(driver);
  });

  it(`reads, writes and survives the garbage collector freeing its statements on this Node (${process.versions.node})`, () => {
    const db = openSqlite(path.join(tempDir(), 'x.db'));
    try {
      const create = db.prepare('create table t (a integer, b text)');
      expect(create.reader).toBe(false);
      create.run([]);
      // The pattern that aborted Node 24 with better-sqlite3 12: a collection right after a statement ran.
      db.prepare('insert into t (a, b) values (?, ?)').run([0, 'zero']);
      collectGarbage();
      db.prepare('delete from t').run([]);
      const insert = db.prepare('insert into t (a, b) values (?, ?) returning a');
      expect(insert.reader).toBe(true);
      expect(insert.all([1, 'one'])).toEqual([{ a: 1 }]);
      expect(db.prepare('insert into t (a, b) values (?, ?)').run([2, 'two'])).toMatchObject({ changes: 1 });
      expect([...db.prepare('select a, b from t order by a').iterate([])].map((r) => ({ ...(r as object) }))).toEqual([
        { a: 1, b: 'one' },
        { a: 2, b: 'two' },
      ]);
      const pragma = (name: string) => Object.values(db.prepare(`pragma ${name}`).all([])[0] as object)[0];
      expect(pragma('journal_mode')).toBe('wal');
      expect(pragma('foreign_keys')).toBe(1);
      expect(pragma('busy_timeout')).toBe(5000);
      // Statements past the cache's size are dropped (distinct texts here); each one dropped is freed by a later
      // collection. With better-sqlite3 12 on Node 24 the first such collection aborted the whole process.
      for (let i = 0; i < 2000; i++) db.prepare(`select ${i} as n`).all([]);
      collectGarbage();
      expect(db.prepare('select count(*) as n from t').all([])).toEqual([{ n: 2 }]);
    } finally {
      db.close();
    }
    collectGarbage();
  });

  it("keeps each query's statement, runs it again with new parameters, and iterates on a statement of its own", () => {
    const db = openSqlite(':memory:');
    try {
      db.prepare('create table t (a integer)').run([]);
      const insert = 'insert into t (a) values (?)';
      for (let i = 0; i < 5; i++) expect(db.prepare(insert).run([i])).toMatchObject({ changes: 1 });
      expect(db.prepare(insert)).toBe(db.prepare(insert));
      const select = 'select a from t where a >= ? order by a';
      // A read while an iteration of the same query is open (better-sqlite3 refuses a busy statement).
      const seen: unknown[] = [];
      for (const row of db.prepare(select).iterate([3]))
        seen.push([(row as { a: number }).a, db.prepare(select).all([4]).length]);
      expect(seen).toEqual([
        [3, 1],
        [4, 1],
      ]);
      // Past the cache's size the oldest statements are dropped, and prepared again when asked for.
      for (let i = 0; i < STATEMENT_CACHE + 10; i++) expect(db.prepare(`select ${i} as n`).all([])).toEqual([{ n: i }]);
      expect(db.prepare('select 0 as n').all([])).toEqual([{ n: 0 }]);
    } finally {
      db.close();
    }
  });

  it(`keeps a process alive through collections right after statements ran, on this Node (${process.versions.node})`, () => {
    // A process of its own: the abort (better-sqlite3 12 on Node 24) kills the whole process, and showed in a
    // plain node process where it did not inside the test runner's.
    const driver = fileURLToPath(new URL('../../src/platform/db/sqlite-driver.ts', import.meta.url));
    const script = `
      const { openSqlite } = await import(${JSON.stringify(driver)});
      const db = openSqlite(':memory:');
      db.prepare('create table t (a)').run([]);
      for (let i = 0; i < 20000; i++) {
        db.prepare('insert into t values (?)').run([i]);
        if (i % 5000 === 0) gc();
      }
      await new Promise((r) => setTimeout(r, 10));
      for (let i = 0; i < 2000; i++) db.prepare('select ' + i + ' as n').all([]);
      gc();
      console.log(JSON.stringify(db.prepare('select count(*) as n from t').all([])));
      db.close();`;
    const res = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(res.stderr).not.toMatch(/Assertion failed/);
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe('[{"n":20000}]');
  });

  it('runs the migrations and queries through Kysely, with collections in between', async () => {
    const db = openDatabase({ dataDir: tempDir() });
    try {
      await migrate(db);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 200; i++) await sql`select ${sql.lit(round * 200 + i)} as n`.execute(db.kysely);
        collectGarbage();
      }
      const { rows } = await sql<{ n: number }>`select count(*) as n from accounts`.execute(db.kysely);
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await db.close();
    }
    collectGarbage();
  });
});
