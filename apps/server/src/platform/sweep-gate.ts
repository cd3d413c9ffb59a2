import pg from 'pg';

/**
 * Decides which process runs the interval sweepers (holds, jobs, orders, client events) when several share one
 * database, so each round runs once per interval across all of them.
 */
export interface SweepGate {
  /** True when this process should run the round that is due now. */
  leading(): Promise<boolean>;
  close(): Promise<void>;
}

/** SQLite: the database belongs to one process, which sweeps. */
export const soleProcess: SweepGate = { leading: () => Promise.resolve(true), close: () => Promise.resolve() };

/** Any number below 2^63; the same in every process of one deployment. Advisory locks are per database. */
const LOCK_SQL = "SELECT pg_try_advisory_lock(hashtext('polyvox:sweeper')) AS ok";
const UNLOCK_SQL = "SELECT pg_advisory_unlock(hashtext('polyvox:sweeper'))";

/**
 * PostgreSQL: the process that holds a session advisory lock on its own connection leads and runs every round; the
 * others ask again each round and skip it. A leader that dies (or loses its connection) drops the lock with its
 * session, and whichever process asks next takes over, so rounds go on within one interval of a crash.
 *
 * A lock held for the leader's lifetime, rather than one per round, is what makes a round run once per interval: a
 * per-round lock only keeps rounds from overlapping, and a second process whose timer fires just after the first
 * finished would sweep again.
 */
export function postgresSweepGate(databaseUrl: string, onError: (err: unknown) => void = () => {}): SweepGate {
  let client: pg.Client | null = null;
  let leader = false;
  let closed = false;
  // One question at a time on the one connection, so the lock's count stays at one.
  let queue: Promise<unknown> = Promise.resolve();

  const drop = () => {
    const c = client;
    client = null;
    leader = false;
    c?.end().catch(() => {});
  };

  const ask = async (): Promise<boolean> => {
    if (closed) return false;
    try {
      if (!client) {
        const c = new pg.Client({ connectionString: databaseUrl, application_name: 'polyvox-sweeper' });
        c.on('error', (err) => {
          onError(err);
          if (client === c) drop();
        });
        client = c;
        await c.connect();
      }
      const { rows } = await client.query<{ ok: boolean }>(LOCK_SQL);
      const ok = rows[0]?.ok === true;
      // Session locks count: taking it again while leading must be given back once, or it would outlive a close.
      if (ok && leader) await client.query(UNLOCK_SQL);
      leader = ok;
      return ok;
    } catch (err) {
      onError(err);
      drop();
      return false;
    }
  };

  return {
    leading() {
      const next = queue.then(ask, ask);
      queue = next;
      return next;
    },
    async close() {
      closed = true;
      await queue.catch(() => {});
      const c = client;
      client = null;
      leader = false;
      // Ending the session releases the lock at once; the next process to ask leads.
      await c?.end().catch(() => {});
    },
  };
}
