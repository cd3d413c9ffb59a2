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

/** How many prepared statements a database keeps: more than the server's distinct queries. */
export const STATEMENT_CACHE = 500;

/**
 * Kysely prepares every query it runs, and preparing was about a tenth of the main thread's work on a
 * `POST /tts`: the same SQL texts come back on every request, so each one's statement is kept (the least
 * recently used dropped past STATEMENT_CACHE) and runs again with new parameters. `all` and `run` finish
 * before they return, so one statement serves every caller; `iterate` stays open while its caller reads,
 * so it always gets a statement of its own.
 */
function keepStatements(db: SqliteDatabase): SqliteDatabase {
  const kept = new Map<string, SqliteStatement>();
  return {
    close: () => {
      kept.clear();
      db.close();
    },
    prepare(sql): SqliteStatement {
      let stmt = kept.get(sql);
      if (stmt) {
        kept.delete(sql);
      } else {
        const prepared = db.prepare(sql);
        stmt = {
          reader: prepared.reader,
          all: (params) => prepared.all(params),
          run: (params) => prepared.run(params),
          iterate: (params) => db.prepare(sql).iterate(params),
        };
        if (kept.size >= STATEMENT_CACHE) kept.delete(kept.keys().next().value!);
      }
      kept.set(sql, stmt);
      return stmt;
    },
  };
}

/** Opens the SQLite file with the library that is safe on this Node, the pragmas the server relies on set. */
export function openSqlite(file: string, driver: SqliteDriverName = sqliteDriverFor(process.versions.node)): SqliteDatabase {
  return keepStatements(driver === 'node:sqlite' ? openNodeSqlite(file) : openBetterSqlite(file));
}
