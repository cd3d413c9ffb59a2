import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { provenanceKeys } from '../provenance/keys.js';
import { loadSecret } from '../platform/secret.js';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { LIMITS } from '@polyvox/contracts';
import { defaultModelsDir, type Config } from '../platform/config.js';
import { migrate, openDatabase, type Db } from '../platform/db/database.js';
import { localStorage, type Storage } from '../platform/storage.js';
import { s3Storage } from '../platform/s3-storage.js';
import { registerQueueDepth } from '../platform/metrics.js';
import { SpeechHost } from '../speech/speech-host.js';
import { sharedAudioCache, type SharedAudioCache } from '../synthesis/shared-cache.js';
import { QueuedSynthesizer, type QueueSettings } from '../synthesis/queue/synthesizer.js';
import { QueueProbe } from '../synthesis/queue/redis.js';
import { BullMqJobProvider } from '../synthesis/queue/bullmq-jobs.js';
import type { Catalogue } from '../orders/products.js';
import { localBroadcast, redisBroadcast, type Broadcast } from '../platform/broadcast.js';

/**
 * A part of the process that is opened at start and closed at shutdown. Each is opened by a plugin of its own
 * (`openResource`), whose onClose closes it: Fastify runs onClose hooks in reverse order of registration, so what
 * was opened last (and may use what came before) is closed first.
 */
export interface Resource<T> {
  name: string;
  open(app: FastifyInstance): Promise<T> | T;
  close(value: T): Promise<unknown> | unknown;
}

/** Registers `resource` as a plugin (fastify-plugin: not encapsulated) and returns what it opened. */
export async function openResource<T>(app: FastifyInstance, resource: Resource<T>): Promise<T> {
  let opened: { value: T } | null = null;
  await app.register(
    fp(
      async (instance) => {
        const value = await resource.open(instance);
        opened = { value };
        instance.addHook('onClose', async () => {
          await resource.close(value);
        });
      },
      { name: resource.name },
    ),
  );
  if (!opened) throw new Error(`${resource.name} did not open`);
  return (opened as { value: T }).value;
}

/** Files in DATA_DIR/files, or in the bucket of S3_URL when it is set. */
export function openStorage(config: Config): Storage {
  return config.S3_URL ? s3Storage(config.S3_URL) : localStorage(path.join(config.DATA_DIR, 'files'));
}

export const storageResource = (config: Config): Resource<Storage> => ({
  name: 'storage',
  async open() {
    const storage = openStorage(config);
    // A bucket that cannot be reached, or refuses the keys, stops the start with the reason.
    await storage.check().catch(async (e: unknown) => {
      await storage.close();
      throw e;
    });
    return storage;
  },
  close: (storage) => storage.close(),
});

export const databaseResource = (config: Config, given?: Db): Resource<Db> => ({
  name: 'database',
  async open() {
    const db = given ?? openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
    await migrate(db);
    return db;
  },
  close: (db) => db.close(),
});

export const redisResource = (config: Config): Resource<Redis | null> => ({
  name: 'redis',
  open(app) {
    const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 }) : null;
    // ioredis retries for ever; one line a minute says it is still failing. /readyz reports an unreachable Redis.
    let redisLogged = 0;
    redis?.on('error', (err: unknown) => {
      if (Date.now() - redisLogged < 60_000) return;
      redisLogged = Date.now();
      app.log.warn({ err }, 'redis connection failed (retrying)');
    });
    return redis;
  },
  close: (redis) => redis?.disconnect(),
});

/**
 * What tells every process of the deployment that something happened (platform/broadcast.ts): through Redis when
 * REDIS_URL is set (subscribed before the process serves anything), else within this process.
 */
export const broadcastResource = (config: Config): Resource<Broadcast> => ({
  name: 'broadcast',
  async open(app) {
    const onError = (err: unknown) => app.log.warn({ err }, 'broadcast: a message or the connection failed');
    return config.REDIS_URL ? redisBroadcast(config.REDIS_URL, config.REDIS_PREFIX, onError) : localBroadcast(onError);
  },
  close: (broadcast) => broadcast.close(),
});

export interface SpeechParts {
  speech: SpeechHost;
  /** The synthesis cache shared through Redis and storage, when REDIS_URL is set. */
  audioCache: SharedAudioCache | null;
}

export const speechResource = (
  config: Config,
  { redis, storage, products }: { redis: Redis | null; storage: Storage; products: Catalogue },
): Resource<SpeechParts> => ({
  name: 'speech',
  open() {
    // Several processes share one synthesis cache through Redis (an index) and storage (the audio).
    const audioCache = redis ? sharedAudioCache(redis, config.REDIS_PREFIX, storage, config.SYNTHESIS_CACHE_SECONDS) : null;
    // The default models folder is made empty on first start (an operator's own MODELS_DIR that is missing is reported).
    if (config.MODELS_DIR === defaultModelsDir(config.DATA_DIR)) mkdirSync(config.MODELS_DIR, { recursive: true, mode: 0o700 });
    const speech = new SpeechHost({
      // Every sample encoded carries the watermark, keyed from the secret every process of a deployment shares.
      watermark: { key: provenanceKeys(loadSecret(config.SECRET, config.DATA_DIR)).watermark },
      // Each caller's own limit is its plan's (checked first, with that limit in the message); the engine takes the longest.
      maxTextLength: Math.max(LIMITS.maxTextLength, products.maxTextLength),
      ...(audioCache ? { cache: audioCache } : {}),
      // An API process only prepares and prices requests: its engines never start.
      warmup: config.ROLE !== 'api' && config.SPEECH_WARMUP,
      ...(config.SPEECH_WORKERS ? { poolSize: config.SPEECH_WORKERS } : {}),
      // A worker process has no API to keep responsive: its threads are SPEECH_WORKERS exactly, unless asked otherwise.
      interactiveLane: config.SPEECH_INTERACTIVE_LANE ?? config.ROLE !== 'worker',
      modelsDir: config.MODELS_DIR,
      remote: {
        ...(config.OPENAI_TTS_URL && config.OPENAI_TTS_KEY
          ? {
              openai: {
                url: config.OPENAI_TTS_URL,
                key: config.OPENAI_TTS_KEY,
                ...(config.OPENAI_TTS_MODEL ? { model: config.OPENAI_TTS_MODEL } : {}),
              },
            }
          : {}),
        ...(config.ELEVENLABS_URL && config.ELEVENLABS_KEY
          ? { elevenlabs: { url: config.ELEVENLABS_URL, key: config.ELEVENLABS_KEY } }
          : {}),
      },
    });
    return { speech, audioCache };
  },
  close: ({ speech }) => speech.close(),
});

/** Scale-out (ROLE=api, worker): the queue settings and, in an API process, its ends of the queues. */
export interface Queues {
  settings: QueueSettings | null;
  remote: QueuedSynthesizer | null;
  jobs: BullMqJobProvider | null;
  probe: QueueProbe | null;
}

export const queuesResource = (config: Config): Resource<Queues & { unregisterDepth: () => void }> => ({
  name: 'queues',
  open(app) {
    // Scale-out (ROLE=api or worker): synthesis goes through the queues in Redis.
    const queueSettings: QueueSettings | null =
      config.ROLE !== 'all' && config.REDIS_URL
        ? {
            redisUrl: config.REDIS_URL,
            prefix: config.QUEUE_PREFIX,
            stalledSeconds: config.QUEUE_STALLED_SECONDS,
            waitSeconds: config.QUEUE_WAIT_SECONDS,
            heartbeatSeconds: config.QUEUE_HEARTBEAT_SECONDS,
            maxAttempts: config.JOB_MAX_ATTEMPTS,
          }
        : null;
    const remote =
      queueSettings && config.ROLE === 'api' ? new QueuedSynthesizer({ settings: queueSettings, log: app.log }) : null;
    const jobQueue = queueSettings && config.ROLE === 'api' ? new BullMqJobProvider({ settings: queueSettings }) : null;
    // The queues' depth for /metrics; a process that cannot count them cannot use them either (see readiness).
    const queueProbe = queueSettings ? new QueueProbe({ settings: queueSettings }) : null;
    const unregisterDepth = queueProbe ? registerQueueDepth(() => queueProbe.depth()) : () => {};
    return { settings: queueSettings, remote, jobs: jobQueue, probe: queueProbe, unregisterDepth };
  },
  async close(queues) {
    queues.unregisterDepth();
    await queues.remote?.close();
    await queues.jobs?.close();
    await queues.probe?.close();
  },
});
