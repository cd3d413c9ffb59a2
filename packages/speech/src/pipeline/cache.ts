/** The synthesis cache: a key over everything that changes the audio, and a small byte-bounded LRU store (`lru-cache`). */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AudioFormat, VoiceProfile } from '../core/types.ts';
import type { AiLabel } from './ai-label.ts';

export interface CacheKeyInput {
  text: string;
  voiceId: string;
  profile: VoiceProfile;
  language?: string;
  speed: number;
  pitch: number;
  format: AudioFormat;
  sampleRate: number;
  /** A labelled rendering is other audio than the unlabelled one (absent: the key of an unlabelled one is unchanged). */
  aiLabel?: AiLabel;
  /** A marked-up plan's per-sentence settings (absent: the key of plain text is unchanged). */
  parts?: unknown[];
  /** Bump when the pipeline's output changes, so old entries stop matching (2: the pauses between sentences). */
  version?: number;
}

/** Canonical JSON: object keys sorted, so equal inputs hash equally whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function cacheKey(input: CacheKeyInput): string {
  return createHash('sha256')
    .update(canonical({ ...input, version: input.version ?? 2 }))
    .digest('hex');
}

export interface CachedAudio {
  audio: Buffer;
  durationSec: number;
  sampleRate: number;
}

/** Where synthesized audio is kept; the server may pass one backed by its storage. */
export interface AudioCache {
  get(key: string): Promise<CachedAudio | undefined> | CachedAudio | undefined;
  set(key: string, value: CachedAudio): Promise<void> | void;
}

/**
 * The in-memory store: least recently used out first once the audio it holds passes `maxBytes`. An entry larger
 * than the whole store is not kept (and does not evict what is there).
 */
export class MemoryAudioCache implements AudioCache {
  private readonly lru: LRUCache<string, CachedAudio>;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {
    // lru-cache counts sizes as positive integers: an empty file counts one byte.
    this.lru = new LRUCache({ maxSize: maxBytes, sizeCalculation: (v) => Math.max(1, v.audio.length) });
  }

  get(key: string): CachedAudio | undefined {
    return this.lru.get(key);
  }

  set(key: string, value: CachedAudio): void {
    if (value.audio.length > this.maxBytes) return;
    this.lru.set(key, value);
  }

  get size(): number {
    return this.lru.size;
  }
}
