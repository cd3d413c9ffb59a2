import fs from 'node:fs';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../storage.js';
import { migrationProvider } from './migrations.js';
import { openSqlite } from './sqlite-driver.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// bigint columns (int8) come back as strings from pg; credits fit a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export function openDatabase(options: { databaseUrl?: string; dataDir: string }): Db {
  ensurePrivateDir(options.dataDir);
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  }
  const file = path.join(options.dataDir, 'polyvox.db');
  // SQLite gives its -wal and -shm files the database file's mode, so making this one private covers them.
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  fs.chmodSync(file, PRIVATE_FILE_MODE);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(file) }) });
  return { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
}

export async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({ db: db.kysely, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}

export const nowIso = (): string => new Date().toISOString();
