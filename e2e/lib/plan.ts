import path from 'node:path';
import SQLite from 'better-sqlite3';
import { SID_KEY } from './browser';
import { env } from './env';

/**
 * Puts the console's account on a plan for `days`, as a settled purchase of that plan would: for flows whose
 * subject is not buying (the economy flow buys through the sandbox) but what a plan allows (long texts, more
 * own voices). Writes the server's SQLite database, as the operator's tools would.
 */
export async function givePlan(level = 'monthly', days = 30): Promise<void> {
  const me = await account();
  if (me.vip.level !== 'free') return;
  await setPlan(me.id, level, new Date(Date.now() + days * 86_400_000).toISOString());
}

/** Puts the console's account back on the free plan (as a plan that ran out would), for what only it shows. */
export async function takePlan(): Promise<void> {
  await setPlan((await account()).id, 'free', null);
}

async function account() {
  const sid = (await env.ui.storage(SID_KEY))!;
  return (await (await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': sid } })).json()) as {
    id: string;
    vip: { level: string };
  };
}

async function setPlan(id: string, level: string, expire: string | null): Promise<void> {
  const db = new SQLite(path.join(env.server.dataDir, 'polyvox.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE accounts SET vip_level = ?, vip_expire = ? WHERE id = ?').run(level, expire, id);
  } finally {
    db.close();
  }
  // The console reads the account (and the plan's limits) afresh.
  await env.page.reload();
}
