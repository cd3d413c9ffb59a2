import { createHash } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LIMITS, sizeLimitText } from '@polyvox/contracts';
import { referenceFromSample, type SynthesisRequest, type VoiceMeasures } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import { PRIVATE_DIR_MODE, type ByteRange, type Storage, type StoredStream } from '../platform/storage.js';
import type { VoiceSamplesTable } from '../platform/db/schema.js';
import { analyzeUpload, type SampleAnalysis } from './analysis.js';
import type { DesignRepository } from './repository.js';
import type { RateLimiter } from '../platform/rate-limit.js';

export interface SampleView {
  id: string;
  index: number;
  format: 'mp3' | 'm4a' | 'wav';
  size: number;
  duration: number;
  sample_rate: number;
  measures: SampleAnalysis['summary'];
  noisy: boolean;
  /** The platform made it (its watermark, or a valid AIGC label or C2PA manifest). */
  synthetic: boolean;
  created_at: string;
  audio_url: string;
}

export function sampleView(row: VoiceSamplesTable): SampleView {
  const stored = JSON.parse(row.measures) as { summary?: SampleAnalysis['summary'] };
  const summary = stored.summary ?? { f0_median_hz: null, snr_db: null, noisy: row.noisy === 1, speech_seconds: null };
  return {
    id: row.id,
    index: Number(row.idx),
    format: row.format as SampleView['format'],
    size: Number(row.size),
    duration: Math.round(Number(row.duration) * 1000) / 1000,
    sample_rate: Number(row.sample_rate),
    measures: summary,
    noisy: row.noisy === 1,
    synthetic: row.synthetic !== null,
    created_at: row.created_at,
    audio_url: sampleAudioUrl(row.id),
  };
}

export const SAMPLE_FOLDER = 'samples';
export const sampleAudioUrl = (id: string) => `/files/${id}/audio`;
const SAMPLE_TYPES = new Map<SampleView['format'], string>([
  ['mp3', 'audio/mpeg'],
  ['m4a', 'audio/mp4'],
  ['wav', 'audio/wav'],
]);

export type Reference = NonNullable<SynthesisRequest['reference']>;

/** Decoded references kept in memory: a clone voice's every request needs its sample, decoded once. */
const REFERENCES_KEPT = 8;

export interface SamplesOptions {
  repo: DesignRepository;
  storage: Storage;
  /** Where uploads are written while they are read. */
  tempDir: string;
  limiter: RateLimiter;
  /** Uploads an account may send an hour. */
  perAccountHour: number;
  /**
   * What in a sample says this platform made it (its watermark, a valid AIGC label or C2PA manifest), or null: a
   * clone of a voice the platform made is recorded as such.
   */
  inspect?: ((bytes: Buffer) => Promise<object | null>) | null;
  /** Refuses (VOICE_PROTECTED) a voiceprint that matches a protected voice. */
  protect?: ((voiceprint: number[] | undefined) => Promise<void>) | null;
}

/**
 * Voice samples for cloning: the upload arrives in a temp file (the route streams it there and stops
 * at the size limit), is judged and measured, then kept in storage with its consent.
 */
export class SamplesService {
  private readonly repo: DesignRepository;
  private readonly storage: Storage;
  readonly tempDir: string;
  private readonly limits: { limiter: RateLimiter; perAccountHour: number };

  constructor(options: SamplesOptions) {
    this.repo = options.repo;
    this.storage = options.storage;
    this.tempDir = options.tempDir;
    this.limits = { limiter: options.limiter, perAccountHour: options.perAccountHour };
    this.inspect = options.inspect ?? null;
    this.protect = options.protect ?? null;
  }

  private readonly protect: ((voiceprint: number[] | undefined) => Promise<void>) | null;

  /**
   * A sample whose voice is protected is refused (VOICE_PROTECTED): at upload, and again before a clone preview
   * (the list may have grown since), always before any fee.
   */
  async guard(measures: VoiceMeasures): Promise<void> {
    await this.protect?.(measures.voiceprint);
  }

  private readonly inspect: ((bytes: Buffer) => Promise<object | null>) | null;

  private readonly references = new Map<string, Promise<Reference>>();

  /** Each upload is decoded and measured: an account may send so many an hour (RATE_LIMITED past that). */
  async admit(accountId: string): Promise<void> {
    const wait = await this.limits.limiter.hit(`sample-upload:${accountId}`, this.limits.perAccountHour, 3600);
    if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
  }

  /** At start: uploads a dead process left half-received are removed. */
  async clearTemp(): Promise<void> {
    await fs.rm(this.tempDir, { recursive: true, force: true });
  }

  /** A fresh temp path for one upload; the folder is the server's alone. */
  async tempFile(): Promise<string> {
    await fs.mkdir(this.tempDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return path.join(this.tempDir, `${newId('file')}.upload`);
  }

  async save(accountId: string, file: string, consent: { ip: string }): Promise<SampleView> {
    const { size } = await fs.stat(file);
    if (size > LIMITS.cloneMaxBytes) throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.cloneMaxBytes) });
    const [analysis, sha256] = await Promise.all([analyzeUpload(file), fileSha256(file)]);
    await this.guard(analysis.measures);
    // Only a sample the analysis accepted is checked for this platform's marks (a hostile file never reaches a
    // second decoder); a check that fails says nothing about the sample.
    const synthetic = this.inspect ? await this.inspect(await fs.readFile(file)).catch(() => null) : null;
    const id = newId('file');
    const key = `${SAMPLE_FOLDER}/${id}.${analysis.format}`;
    // Up to the 20 MB limit: streamed from the temp file, never whole in memory (a bucket takes it in parts).
    await this.storage.putStream(key, fsSync.createReadStream(file), { contentType: SAMPLE_TYPES.get(analysis.format)!, size });
    const now = nowIso();
    try {
      const idx = await this.repo.nextNumber(accountId, 'sample');
      const row: VoiceSamplesTable = {
        id,
        account_id: accountId,
        idx,
        format: analysis.format,
        size,
        duration: analysis.durationSec,
        sample_rate: analysis.sampleRate,
        measures: JSON.stringify({ measures: analysis.measures, summary: analysis.summary }),
        noisy: analysis.summary.noisy ? 1 : 0,
        storage_key: key,
        consent_at: now,
        consent_ip: consent.ip,
        sha256,
        synthetic: synthetic ? JSON.stringify(synthetic) : null,
        created_at: now,
      };
      await this.repo.insertSample(row);
      return sampleView(row);
    } catch (e) {
      await this.storage.delete(key).catch(() => {});
      throw e;
    }
  }

  /** The account's samples, newest first, each with its audio address. */
  async list(accountId: string, page: number, pageSize: number) {
    const { rows, total } = await this.repo.samples(accountId, page, pageSize);
    return { items: rows.map(sampleView), total, page, page_size: pageSize };
  }

  /** A sample's audio as uploaded, for its owner only. */
  async audio(accountId: string, id: string, range?: ByteRange): Promise<{ file: StoredStream; contentType: string }> {
    const row = await this.repo.sample(accountId, id);
    const file = row ? await this.storage.getStream(row.storage_key, range) : null;
    if (!row || !file) throw new AppError('NOT_FOUND');
    return { file, contentType: SAMPLE_TYPES.get(row.format as SampleView['format']) ?? 'application/octet-stream' };
  }

  /** The account's sample and its measures; another account's answers NOT_FOUND like a missing one. */
  async get(accountId: string, id: string): Promise<{ row: VoiceSamplesTable; measures: VoiceMeasures }> {
    const row = await this.repo.sample(accountId, id);
    if (!row) throw new AppError('NOT_FOUND');
    const stored = JSON.parse(row.measures) as { measures: VoiceMeasures };
    return { row, measures: stored.measures };
  }

  /**
   * The sample as a zero-shot cloning model takes it (decoded, its silence trimmed, at most 15 s),
   * with the transcript when there is one. The decoded audio is kept for the latest few samples, so
   * a clone voice's requests decode its sample once; the caller's account is checked every time.
   */
  async reference(accountId: string, fileId: string, transcript: string | null | undefined): Promise<Reference> {
    const row = await this.repo.sample(accountId, fileId);
    if (!row) throw new AppError('NOT_FOUND');
    let pending = this.references.get(row.id);
    if (pending) {
      // Most recently used last: the oldest is the first a new sample pushes out.
      this.references.delete(row.id);
      this.references.set(row.id, pending);
    } else {
      pending = this.decodeReference(row.storage_key);
      this.references.set(row.id, pending);
      pending.catch(() => this.references.delete(row.id));
      while (this.references.size > REFERENCES_KEPT) this.references.delete(this.references.keys().next().value!);
    }
    const { samples, sampleRate } = await pending;
    const text = transcript?.trim();
    return { samples, sampleRate, ...(text ? { text } : {}) };
  }

  /** A sample that was deleted (with its voice) leaves no decoded copy behind. */
  forget(fileId: string): void {
    this.references.delete(fileId);
  }

  private async decodeReference(key: string): Promise<Reference> {
    const data = await this.storage.get(key);
    if (!data) throw new AppError('NOT_FOUND');
    const file = await this.tempFile();
    try {
      await fs.writeFile(file, data, { mode: 0o600 });
      return await referenceFromSample(file);
    } finally {
      await fs.rm(file, { force: true });
    }
  }
}

/** The SHA-256 of a file's bytes (hex), read as a stream: what a clone's provenance records point to. */
async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fsSync.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
