import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import type { AppContext } from '../../src/composition/context.js';
import type { Mailer } from '../../src/platform/mail.js';
import { freePort } from './ports.js';

/** Integration tests run once per database; PostgreSQL is the loopback server of these machines. */
const ALL_DIALECTS = ['sqlite', 'postgres'] as const;
export type TestDialect = (typeof ALL_DIALECTS)[number];
/**
 * TEST_DIALECTS (a comma list) narrows the run to those databases; unset, both. The tiers on other Node versions
 * run SQLite only (scripts/test-node-versions.mjs): its driver is the native part that differs by version.
 */
export const DIALECTS: readonly TestDialect[] = selectDialects(process.env.TEST_DIALECTS);

function selectDialects(list: string | undefined): TestDialect[] {
  if (!list) return [...ALL_DIALECTS];
  const chosen = list.split(',').map((d) => d.trim());
  const unknown = chosen.filter((d) => !(ALL_DIALECTS as readonly string[]).includes(d));
  if (unknown.length || !chosen.length) throw new Error(`TEST_DIALECTS: not a database of the tests: ${unknown.join(', ')}`);
  return ALL_DIALECTS.filter((d) => chosen.includes(d));
}

const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestApp {
  url: string;
  app: FastifyInstance;
  ctx: AppContext;
  dataDir: string;
  outbox: string;
  /** Closes the app as a shutdown does, keeping its database and files. */
  stop(): Promise<void>;
  /** Stops the app and starts a new one on the same database and DATA_DIR, as a restart does. */
  restart(): Promise<TestApp>;
  close(): Promise<void>;
}

export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `polyvox_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      // The app's pool resolves end() before its sockets close; forcing the drop then would kill
      // connections that are still closing, and pg reports that as an uncaught error in the test.
      for (let i = 0; i < 100; i++) {
        const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (Number(rows[0]?.n) === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A stream for the app's logger that parses each JSON line into `logs`. */
function logInto(logs: LogLine[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
}

/** The tests start the API roles in-process (a worker runs as a process of its own, support/processes.ts). */
async function buildApi(...args: Parameters<typeof buildApp>): Promise<Extract<BuiltApp, { role: 'all' | 'api' }>> {
  const built = await buildApp(...args);
  if (built.role === 'worker') {
    await built.app.close();
    throw new Error('startTestApp and startPeer start ROLE=all or api; a worker is started with startServer');
  }
  return built;
}

/** Boots the real app in-process on a fresh database and a fresh DATA_DIR, listening on a free port. */
export async function startTestApp(
  dialect: TestDialect,
  options: {
    env?: Record<string, string>;
    mailer?: Mailer;
    logs?: LogLine[];
    /** Files in this bucket (a test S3 server, `support/s3.ts`) instead of DATA_DIR/files. */
    s3?: { url: string };
  } = {},
): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-test-'));
  // PUBLIC_URL defaults to http://HOST:PORT, the origin payments return to: the app listens on a port known beforehand.
  const port = await freePort();
  const database = dialect === 'postgres' ? await createPgDatabase() : null;
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WEB_DIST: path.join(dataDir, 'no-web'),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...(options.s3 ? { S3_URL: options.s3.url } : {}),
    // Every test client is 127.0.0.1: per-requester account and grant limits would couple unrelated
    // tests. accounts.abuse.test.ts sets them on purpose and tests them.
    ACCOUNT_LIMIT_PER_IP_HOUR: '100000',
    TRIAL_GRANTS_PER_IP_DAY: '100000',
    PLAN_GRANTS_PER_IP_DAY: '100000',
    EXISTS_LIMIT_PER_IP_MINUTE: '100000',
    STATS_EVENTS_PER_MINUTE: '100000',
    // uploads.limits.test.ts sets the avatar upload limits on purpose and tests them.
    AVATAR_UPLOADS_PER_IP_HOUR: '100000',
    AVATAR_UPLOADS_PER_ACCOUNT_HOUR: '100000',
    ...options.env,
  });
  const logStream = options.logs ? logInto(options.logs) : undefined;

  async function boot(): Promise<TestApp> {
    const { app, ctx } = await buildApi(config, { mailer: options.mailer, ...(logStream ? { logStream } : {}) });
    await app.listen({ port, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    let stopped: Promise<void> | null = null;
    const stop = () => (stopped ??= app.close());
    return {
      url: `http://127.0.0.1:${address.port}`,
      app,
      ctx,
      dataDir,
      outbox: path.join(dataDir, 'outbox'),
      stop,
      async restart() {
        await stop();
        return boot();
      },
      async close() {
        await stop();
        await database?.drop();
        await fs.rm(dataDir, { recursive: true, force: true });
      },
    };
  }
  return boot();
}

/**
 * A second server process on the first one's database (and Redis, if it has one): another app in this
 * process with its own pools, caches and limiters, as a second machine behind a load balancer would be.
 */
export async function startPeer(
  first: TestApp,
  options: { logs?: LogLine[] } = {},
): Promise<{ url: string; ctx: AppContext; close(): Promise<void> }> {
  const { app, ctx } = await buildApi({ ...first.ctx.config, PORT: 0 }, options.logs ? { logStream: logInto(options.logs) } : {});
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}`, ctx, close: () => app.close() };
}
