/** The synthesis cache: a key over everything that changes the audio, and a small LRU store. */
import { createHash } from 'node:crypto';
import type { AudioFormat, VoiceProfile } from '../types.ts';

export interface CacheKeyInput {
  text: string;
  voiceId: string;
  profile: VoiceProfile;
  language?: string;
  speed: number;
  pitch: number;
  format: AudioFormat;
  sampleRate: number;
  /** Bump when the pipeline's output changes, so old entries stop matching. */
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
    .update(canonical({ ...input, version: input.version ?? 1 }))
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

export class MemoryAudioCache implements AudioCache {
  private readonly map = new Map<string, CachedAudio>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string): CachedAudio | undefined {
    const v = this.map.get(key);
    if (v) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: CachedAudio): void {
    if (value.audio.length > this.maxBytes) return;
    const old = this.map.get(key);
    if (old) this.bytes -= old.audio.length;
    this.map.delete(key);
    this.map.set(key, value);
    this.bytes += value.audio.length;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= v.audio.length;
    }
  }

  get size(): number {
    return this.map.size;
  }
}
