import { PassThrough, Readable } from 'node:stream';
import { once } from 'node:events';
import type { HistoryItem, HistoryListQuery, HistoryListResponse } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import { HistoryRepository, type HistoryRow } from './repository.js';
import { voiceCategoryOf, type HistoryCapture, type HistoryEntry, type HistoryRecorder } from './types.js';
import { zipStream } from '../platform/zip.js';

const DAY_MS = 86_400_000;
/** Items the sweeper removes per round. */
const SWEEP_BATCH = 500;

export interface HistoryOptions {
  repo: HistoryRepository;
  storage: Storage;
  /** Days an item and its audio are kept (the operator's HISTORY_RETENTION_DAYS, read at each use). */
  retentionDays: () => number;
  /** The clock (tests set their own). */
  now?: () => Date;
  /** A recording that failed: logged; the delivery it follows is not affected. */
  onError?: (err: unknown, what: string) => void;
}

/** A file's name in a download: the item's id and its format's extension. */
export function fileNameOf(row: Pick<HistoryRow, 'id' | 'output_format' | 'content_type'>): string {
  const format = row.output_format.split('_')[0] ?? 'mp3';
  const ext = /^(mp3|wav|opus|pcm|ulaw|alaw|flac|aac)$/.test(format) ? format : 'bin';
  return `${row.id}.${ext}`;
}

/** An audio file read back from the history (whole, or the range asked): never charged. */
export interface HistoryAudio {
  file: StoredStream;
  contentType: string;
  fileName: string;
}

/**
 * Every generation that delivered audio, kept for the operator's retention: recorded once paid for (the audio that
 * left, labelled and marked as it was sent), listed and searched in ElevenLabs' shapes, read back and downloaded
 * without a charge, deleted by its owner with its file, swept when its retention ends.
 */
export class HistoryService implements HistoryRecorder {
  private readonly now: () => Date;
  constructor(private readonly options: HistoryOptions) {
    this.now = options.now ?? (() => new Date());
  }

  private failed(err: unknown, what: string): void {
    this.options.onError?.(err, what);
  }

  /** The row of an entry whose audio is stored under `key` (`bytes` long), priced by its hold's settlement. */
  private async insert(id: string, entry: HistoryEntry, key: string, bytes: number): Promise<void> {
    const settled = entry.holdId ? await this.options.repo.settlement(entry.holdId) : null;
    const credits = settled ? settled.charge : entry.credits;
    await this.options.repo.insert({
      id,
      account_id: entry.accountId,
      api_key_id: entry.apiKeyId,
      request_id: entry.requestId,
      hold_id: entry.holdId,
      route: entry.route,
      source: 'TTS',
      text: entry.text,
      voice_id: entry.voiceId,
      voice_name: entry.voiceName,
      voice_category: voiceCategoryOf(entry.voiceType),
      model_id: entry.modelId,
      settings: JSON.stringify(entry.settings),
      dialogue: entry.dialogue ? JSON.stringify(entry.dialogue) : null,
      output_format: entry.outputFormat,
      content_type: entry.contentType,
      characters: entry.characters,
      credits,
      balance_before: settled ? settled.balanceAfter + settled.charge : null,
      balance_after: settled ? settled.balanceAfter : null,
      audio_key: key,
      audio_bytes: bytes,
      created_at: this.now().toISOString(),
    });
  }

  async recordFile(entry: HistoryEntry, audio: Buffer): Promise<void> {
    const id = newId('historyItem');
    const key = `history/${id}`;
    try {
      await this.options.storage.put(key, audio, { contentType: entry.contentType, size: audio.length });
      await this.insert(id, entry, key, audio.length);
    } catch (err) {
      await this.options.storage.delete(key).catch(() => {});
      this.failed(err, 'recording a generation in the history failed');
    }
  }

  async recordStored(entry: HistoryEntry, from: string): Promise<void> {
    const id = newId('historyItem');
    const key = `history/${id}`;
    try {
      const source = await this.options.storage.getStream(from);
      if (!source) return;
      const { size } = await this.options.storage.putStream(key, source.body, { contentType: entry.contentType });
      await this.insert(id, entry, key, size);
    } catch (err) {
      await this.options.storage.delete(key).catch(() => {});
      this.failed(err, 'recording a generation in the history failed');
    }
  }

  capture(entry: HistoryEntry): HistoryCapture {
    const id = newId('historyItem');
    const key = `history/${id}`;
    const pipe = new PassThrough();
    let holdId = entry.holdId;
    let broken = false;
    // Written as the chunks go; a failure of storage only stops the recording.
    const stored = this.options.storage.putStream(key, pipe, { contentType: entry.contentType }).catch((err: unknown) => {
      broken = true;
      this.failed(err, 'storing a stream for the history failed');
      return null;
    });
    return {
      held: (id) => {
        holdId = id;
      },
      add: async (chunk) => {
        if (broken || pipe.destroyed) return;
        if (!pipe.write(chunk)) await Promise.race([once(pipe, 'drain'), stored]);
      },
      finish: async (delivered) => {
        if (!delivered || broken) {
          pipe.destroy();
          await stored;
          await this.options.storage.delete(key).catch(() => {});
          return;
        }
        pipe.end();
        const done = await stored;
        if (!done) return;
        try {
          await this.insert(id, { ...entry, holdId }, key, done.size);
        } catch (err) {
          await this.options.storage.delete(key).catch(() => {});
          this.failed(err, 'recording a stream in the history failed');
        }
      },
    };
  }

  private expiresAt(row: Pick<HistoryRow, 'created_at'>): string {
    return new Date(Date.parse(row.created_at) + this.options.retentionDays() * DAY_MS).toISOString();
  }

  /** The voices an item was made with: its voice, or a dialogue's. */
  private voicesOf(row: HistoryRow): string[] {
    const ids = row.voice_id ? [row.voice_id] : [];
    if (row.dialogue) for (const turn of JSON.parse(row.dialogue) as { voice_id: string }[]) ids.push(turn.voice_id);
    return ids;
  }

  /**
   * The items of these made with a voice since taken down (its own, or one of a dialogue's): listed and marked, their
   * audio served to no one.
   */
  private async withdrawn(rows: readonly HistoryRow[]): Promise<Set<string>> {
    const down = await this.options.repo.takenDown(rows.flatMap((r) => this.voicesOf(r)));
    if (!down.size) return new Set();
    return new Set(rows.filter((r) => this.voicesOf(r).some((v) => down.has(v))).map((r) => r.id));
  }

  /** The account's item in the API's shape; NOT_FOUND as `get`. */
  async item(accountId: string, id: string): Promise<HistoryItem> {
    const row = await this.get(accountId, id);
    return this.view(row, (await this.withdrawn([row])).has(row.id));
  }

  /**
   * An item in ElevenLabs' shape, with Polyvox's fields after its. `takenDown`: a voice it was made with was taken
   * down after a report, so its audio is no longer served.
   */
  view(row: HistoryRow, takenDown = false): HistoryItem {
    const before = row.balance_before ?? row.credits;
    const after = row.balance_after ?? 0;
    return {
      history_item_id: row.id,
      request_id: row.request_id,
      voice_id: row.voice_id,
      model_id: row.model_id,
      voice_name: row.voice_name,
      voice_category: row.voice_category as HistoryItem['voice_category'],
      text: row.dialogue ? null : row.text,
      date_unix: Math.floor(Date.parse(row.created_at) / 1000),
      character_count_change_from: Number(before),
      character_count_change_to: Number(after),
      content_type: row.content_type,
      state: 'created',
      settings: JSON.parse(row.settings) as Record<string, unknown>,
      share_link_id: null,
      source: 'TTS',
      dialogue: row.dialogue ? (JSON.parse(row.dialogue) as HistoryItem['dialogue']) : null,
      output_format: row.output_format,
      credits: Number(row.credits),
      characters: Number(row.characters),
      route: row.route,
      api_key_id: row.api_key_id,
      created_at: row.created_at,
      expires_at: this.expiresAt(row),
      audio_available: row.audio_key !== null && !takenDown,
      voice_taken_down: takenDown,
    };
  }

  /** Only items still within the retention are shown (the sweeper removes the rest on its next round). */
  private live(row: HistoryRow | undefined): row is HistoryRow {
    return row !== undefined && Date.parse(this.expiresAt(row)) > this.now().getTime();
  }

  async list(accountId: string, q: HistoryListQuery): Promise<HistoryListResponse> {
    if (q.source && q.source !== 'TTS') return { history: [], last_history_item_id: null, has_more: false, scanned_until: null };
    const cursor = q.start_after_history_item_id
      ? await this.options.repo.get(accountId, q.start_after_history_item_id)
      : undefined;
    if (q.start_after_history_item_id && !cursor) throw new AppError('NOT_FOUND');
    const found = (await this.options.repo.page(accountId, q, cursor)).filter((r) => this.live(r));
    const rows = await this.options.repo.settleRows(found);
    const page = rows.slice(0, q.page_size);
    const last = page.at(-1);
    const withdrawn = await this.withdrawn(page);
    return {
      history: page.map((r) => this.view(r, withdrawn.has(r.id))),
      last_history_item_id: last?.id ?? null,
      has_more: rows.length > q.page_size,
      scanned_until: last ? Math.floor(Date.parse(last.created_at) / 1000) : null,
    };
  }

  /** The account's item; NOT_FOUND for another account's, a missing or an expired one. */
  async get(accountId: string, id: string): Promise<HistoryRow> {
    const row = await this.options.repo.get(accountId, id);
    if (!this.live(row) || (await this.options.repo.settleRows([row])).length === 0) throw new AppError('NOT_FOUND');
    return row;
  }

  async audio(accountId: string, id: string, range?: ByteRange): Promise<HistoryAudio> {
    const row = await this.get(accountId, id);
    // Made with a voice since taken down: its audio is served to no one.
    if ((await this.withdrawn([row])).size) throw new AppError('NOT_FOUND');
    const file = row.audio_key ? await this.options.storage.getStream(row.audio_key, range) : null;
    if (!file) throw new AppError('NOT_FOUND');
    return { file, contentType: row.content_type, fileName: fileNameOf(row) };
  }

  /**
   * One item's audio as it is, or several as a zip (each file named by its id). `wav` only for items made as wav: the
   * history keeps what was delivered and does not transcode.
   */
  async download(accountId: string, ids: readonly string[], outputFormat?: string): Promise<HistoryAudio | { zip: Readable }> {
    const unique = [...new Set(ids)];
    const rows = await Promise.all(unique.map((id) => this.get(accountId, id)));
    if (outputFormat && outputFormat !== 'default' && rows.some((r) => !r.output_format.startsWith(outputFormat)))
      throw new AppError('VALIDATION_FAILED', {
        field: 'output_format',
        rule: 'must be default, or the format the items were made in',
      });
    if ((await this.withdrawn(rows)).size) throw new AppError('NOT_FOUND');
    if (rows.length === 1) return this.audio(accountId, rows[0]!.id);
    for (const row of rows)
      if (!row.audio_key || !(await this.options.storage.stat(row.audio_key))) throw new AppError('NOT_FOUND');
    const storage = this.options.storage;
    const entries = rows.map((row) => ({
      name: fileNameOf(row),
      date: new Date(row.created_at),
      open: async () => {
        const file = await storage.getStream(row.audio_key!);
        if (!file) throw new Error(`history audio ${row.id} vanished during a download`);
        return file.body as AsyncIterable<Buffer>;
      },
    }));
    return { zip: zipStream(entries) };
  }

  /** Deletes the account's item and its audio file; NOT_FOUND for another account's. */
  async delete(accountId: string, id: string): Promise<void> {
    const row = await this.options.repo.delete(accountId, id);
    if (!row) throw new AppError('NOT_FOUND');
    if (row.audio_key) await this.options.storage.delete(row.audio_key);
  }

  /** Removes items (and their audio) past the retention; returns how many. */
  async sweep(): Promise<number> {
    const before = new Date(this.now().getTime() - this.options.retentionDays() * DAY_MS).toISOString();
    let removed = 0;
    for (;;) {
      const rows = await this.options.repo.expired(before, SWEEP_BATCH);
      if (rows.length === 0) return removed;
      for (const row of rows) if (row.audio_key) await this.options.storage.delete(row.audio_key);
      await this.options.repo.remove(rows.map((r) => r.id));
      removed += rows.length;
      if (rows.length < SWEEP_BATCH) return removed;
    }
  }
}
