import { MemoryAudioCache, type AudioCache, type CachedAudio } from '@polyvox/speech';
import type { Storage } from '../platform/storage.js';

/** The Redis commands the shared cache uses; ioredis satisfies it. */
export interface CacheRedis {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  exists(...keys: string[]): Promise<number>;
}

export const CACHE_FOLDER = 'synth-cache';
const KEY = /^[0-9a-f]{64}$/;

export interface SharedAudioCache extends AudioCache {
  /** Deletes stored audio whose index entry has expired; returns how many files went. */
  sweep(): Promise<number>;
}

/**
 * The synthesis cache shared by every process of a deployment (REDIS_URL set).
 *
 * Entries are content-addressed: the key is the SHA-256 of everything that changes the audio (text, voice, profile,
 * speed, pitch, format, rate and the pipeline's version), so an entry can only ever be the audio of that request, and
 * any process may serve what another made. The audio lives in storage under `synth-cache/<key>` (the S3 bucket at
 * scale); Redis holds only a small index entry per key (`<duration> <rate> <bytes>`) that expires after `ttlSeconds`,
 * so Redis, which the queues need with no eviction, stays small. A file is read only when its index entry is live and
 * its size matches it; anything else is a miss and the audio is made again. Each process keeps its own in-memory LRU
 * in front. Billing does not look at the cache: a hit is priced and charged exactly as a miss, once per request.
 * Redis or storage failing makes the shared layer a miss, never an error.
 */
export function sharedAudioCache(
  redis: CacheRedis,
  prefix: string,
  storage: Storage,
  ttlSeconds: number,
  memory: AudioCache = new MemoryAudioCache(),
): SharedAudioCache {
  const indexKey = (key: string) => `${prefix}audio:${key}`;
  const file = (key: string) => `${CACHE_FOLDER}/${key}`;
  return {
    async get(key) {
      const local = await memory.get(key);
      if (local) return local;
      if (!KEY.test(key)) return undefined;
      try {
        const entry = await redis.get(indexKey(key));
        const [duration, rate, bytes] = (entry ?? '').split(' ').map(Number);
        if (!entry || !Number.isFinite(duration) || !Number.isInteger(rate) || !Number.isInteger(bytes)) return undefined;
        const audio = await storage.get(file(key));
        if (!audio || audio.length !== bytes) return undefined;
        const found: CachedAudio = { audio, durationSec: duration!, sampleRate: rate! };
        await memory.set(key, found);
        return found;
      } catch {
        return undefined;
      }
    },
    async set(key, value) {
      await memory.set(key, value);
      if (ttlSeconds === 0 || !KEY.test(key)) return;
      try {
        // The file first: an index entry never points at audio that is not there yet.
        await storage.put(file(key), value.audio);
        await redis.set(indexKey(key), `${value.durationSec} ${value.sampleRate} ${value.audio.length}`, 'PX', ttlSeconds * 1000);
      } catch {
        // Not shared this time; this process still has it.
      }
    },
    async sweep() {
      const keys = (await storage.list(CACHE_FOLDER)).map((k) => k.slice(CACHE_FOLDER.length + 1)).filter((k) => KEY.test(k));
      let removed = 0;
      for (const key of keys) {
        if ((await redis.exists(indexKey(key))) === 0) {
          await storage.delete(file(key));
          removed += 1;
        }
      }
      return removed;
    },
  };
}
