import { AccountAdminService } from '../account-admin/service.js';
import { ClonedVoices } from '../account-admin/cloned-voices.js';
import { OverviewService, type EngineHealth, type QueueHealth } from '../overview/service.js';
import { heartbeatKey } from '../synthesis/queue/redis.js';
import type { AppContext } from './context.js';
import { ACCOUNT_DISABLED_TOPIC } from './core-services.js';

/** The console's accounts: a disable is told to every process (core-services.ts acts on it in each), then jobs stop here. */
export function accountAdminOf(ctx: AppContext): AccountAdminService {
  return new AccountAdminService({
    db: ctx.db.kysely,
    dialect: ctx.db.dialect,
    credits: ctx.credits,
    sessions: ctx.sessions,
    audit: ctx.audit,
    stopper: {
      async stop(accountId) {
        await ctx.broadcast.publish(ACCOUNT_DISABLED_TOPIC, accountId);
        return { jobs: await ctx.jobs.cancelAll(accountId) };
      },
    },
  });
}

/** The samples and consent records behind the accounts' cloned voices, kept VOICE_RETENTION_DAYS after a deletion. */
export function clonedVoicesOf(ctx: AppContext): ClonedVoices {
  return new ClonedVoices({
    db: ctx.db.kysely,
    storage: ctx.storage,
    audit: ctx.audit,
    retentionDays: () => ctx.settings.current().VOICE_RETENTION_DAYS,
  });
}

/** The workers whose heartbeat key is alive (ROLE=api: they share the queues' Redis). */
async function countWorkers(ctx: AppContext): Promise<number> {
  const redis = ctx.redis;
  const settings = ctx.queues.settings;
  if (!redis || !settings) return 0;
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', heartbeatKey(settings.prefix, '*'), 'COUNT', 200);
    cursor = next;
    n += keys.length;
  } while (cursor !== '0');
  return n;
}

/** The console's overview, with the engines of this process and, in an API process, the queues and their workers. */
export function overviewOf(ctx: AppContext): OverviewService {
  const host = ctx.speech;
  const engines: EngineHealth = {
    get started() {
      return host.started;
    },
    ready: () => host.started && host.ready(),
    async snapshot() {
      const speech = await host.get();
      return {
        models: speech.listModels().map((m) => ({ id: m.id, engine: m.engine, type: m.type, voices: m.voiceCount })),
        unavailable: [...speech.unavailable],
        problems: speech.modelProblems.map((p) => ({ folder: p.folder, message: p.message })),
      };
    },
  };
  const probe = ctx.queues.probe;
  const queues: QueueHealth | null = probe ? { depth: () => probe.depth(), workers: () => countWorkers(ctx) } : null;
  return new OverviewService({ db: ctx.db.kysely, role: ctx.config.ROLE, engines, queues, speechStats: ctx.speechStats });
}
