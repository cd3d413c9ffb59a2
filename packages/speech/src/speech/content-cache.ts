/**
 * The facade's audio cache: the key of a plan's audio (everything that makes it sound as it does), and which requests
 * read and fill the cache. A request with a reference sample is never cached (the key does not cover the sample), the
 * cache keeps audio and not timings (a request for timings makes its audio again), and the warm-up's own requests
 * neither read nor fill it (shared, at scale, with other processes).
 */
import { cacheKey, type AudioCache, type CachedAudio } from '../pipeline/cache.ts';
import type { Plan, SynthesisRequest } from '../pipeline/plan.ts';

export class ContentCache {
  private readonly uncached = new WeakSet<SynthesisRequest>();

  /** `store`: undefined when caching is off; `sampleRate`: the configured output rate, part of every key. */
  constructor(
    private readonly store: AudioCache | undefined,
    private readonly sampleRate: number,
  ) {}

  /** The key of a plan's audio. */
  keyOf(plan: Plan): string {
    return cacheKey({
      text: plan.text,
      voiceId: plan.voice.id,
      profile: plan.profile,
      language: plan.language,
      speed: plan.speed,
      pitch: plan.pitch,
      format: plan.format,
      sampleRate: this.sampleRate,
      ...(plan.aiLabel ? { aiLabel: plan.aiLabel } : {}),
      // Markup's pauses, prosody and voices are not in the text: the same words with a break are other audio.
      ...(plan.parts
        ? { parts: plan.parts.map((p) => ({ ...p, voice: p.voice?.variant, profile: p.profile ? p.voice?.id : undefined })) }
        : {}),
    });
  }

  /** The request neither reads nor fills the cache (the warm-up's). */
  skip(req: SynthesisRequest): void {
    this.uncached.add(req);
  }

  /** The audio kept for the request's plan, if it may be read from the cache and is there. */
  async get(req: SynthesisRequest, plan: Plan, key: string): Promise<CachedAudio | undefined> {
    if (plan.reference || req.timings || this.uncached.has(req)) return undefined;
    return this.store?.get(key);
  }

  /** Keeps a rendering's audio, unless the request may not fill the cache. */
  async set(req: SynthesisRequest, plan: Plan, key: string, audio: CachedAudio): Promise<void> {
    if (plan.reference || this.uncached.has(req)) return;
    await this.store?.set(key, audio);
  }
}
