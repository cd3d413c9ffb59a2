import { createRequire } from 'node:module';
import SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * The SQLite library under Kysely. better-sqlite3 12 (the last to run on Node 20) aborts the process on Node 24
 * whenever the garbage collector frees one of its statements (`Assertion failed: (env) != nullptr` in
 * `node::RemoveEnvironmentCleanupHook`, from `Statement::~Statement`), and Kysely prepares a statement per query;
 * better-sqlite3 13 fixes it but does not run on Node 20. So Node 24 and later use Node's own `node:sqlite`, and
 * Node 20 and 22 keep better-sqlite3; both speak the same SQL to the same file.
 */
export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite';

export function sqliteDriverFor(nodeVersion: string): SqliteDriverName {
  return Number(nodeVersion.split('.')[0]) >= 24 ? 'node:sqlite' : 'better-sqlite3';
}

const PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'busy_timeout = 5000'];

// The part of node:sqlite used here (@types/node 20 has no types for it).
interface NodeStatement {
  columns(): unknown[];
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface NodeDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeStatement;
  close(): void;
}

function openNodeSqlite(file: string): SqliteDatabase {
  const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as {
    DatabaseSync: new (file: string) => NodeDatabase;
  };
  const db = new DatabaseSync(file);
  for (const pragma of PRAGMAS) db.exec(`PRAGMA ${pragma}`);
  return {
    close: () => db.close(),
    prepare(sql): SqliteStatement {
      const stmt = db.prepare(sql);
      return {
        reader: stmt.columns().length > 0,
        all: (params) => stmt.all(...params),
        run: (params) => stmt.run(...params),
        iterate: (params) => stmt.iterate(...params),
      };
    },
  };
}

function openBetterSqlite(file: string): SqliteDatabase {
  const db = new SQLite(file);
  for (const pragma of PRAGMAS) db.pragma(pragma);
  return db;
}

/** Opens the SQLite file with the library that is safe on this Node, the pragmas the server relies on set. */
export function openSqlite(file: string, driver: SqliteDriverName = sqliteDriverFor(process.versions.node)): SqliteDatabase {
  return driver === 'node:sqlite' ? openNodeSqlite(file) : openBetterSqlite(file);
}
