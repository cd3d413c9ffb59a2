import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { LIMITS, sizeLimitText } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import { requesterKey, type RateLimiter } from '../platform/rate-limit.js';

export interface UploadLimits {
  limiter: RateLimiter;
  /** Avatars one account may upload per hour. */
  perAccountHour: number;
  /** Avatars one IP (IPv6: one /64) may upload per hour, whatever the accounts. */
  perIpHour: number;
  /** How long an avatar no account shows is kept (a picture just uploaded, not yet saved to the profile). */
  keepMs: number;
}

/** One sweep round removes at most this many, so a round stays short; the next takes the rest. */
const SWEEP_BATCH = 500;

export const AVATAR_PATH = '/files/';
/** Avatars show small; a larger picture is scaled down, which also bounds what is stored. */
export const AVATAR_MAX_SIDE = 512;
/** A decompression bomb stops here rather than filling memory. */
const MAX_INPUT_PIXELS = 8192 * 8192;

/**
 * Decodes the picture and encodes it again in its own format: what is stored is pixels only, without metadata (EXIF
 * location), trailing bytes or anything a browser could sniff as another type (a PNG with HTML appended).
 */
async function reencode(data: Buffer, mime: string): Promise<Buffer> {
  const image = sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .rotate()
    .resize(AVATAR_MAX_SIDE, AVATAR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true });
  const encoded =
    mime === 'image/png' ? image.png() : mime === 'image/webp' ? image.webp({ quality: 85 }) : image.jpeg({ quality: 85 });
  try {
    return await encoded.toBuffer();
  } catch (e) {
    throw new AppError('UNSUPPORTED_FILE_TYPE', {}, { cause: e });
  }
}

export interface UploadsOptions {
  db: Kysely<Database>;
  /** Where the avatars are kept. */
  storage: Storage;
  limits: UploadLimits;
}

/** Accepts a file only for what its bytes are, never for its name or declared type. */
export class UploadsService {
  private readonly db: Kysely<Database>;
  private readonly storage: Storage;
  private readonly limits: UploadLimits;

  constructor(options: UploadsOptions) {
    this.db = options.db;
    this.storage = options.storage;
    this.limits = options.limits;
  }

  /**
   * Counts one avatar upload against the account's and the IP's hourly allowance, before a byte of it is read:
   * each is decoded and re-encoded, and stored until the sweep finds it unused.
   */
  async admitAvatar(accountId: string, ip: string): Promise<void> {
    const { limiter, perAccountHour, perIpHour } = this.limits;
    // The account first: an account over its own limit does not spend its IP's allowance for the others behind it.
    let wait = await limiter.hit(`avatar-upload:acc:${accountId}`, perAccountHour, 3600);
    if (wait === 0) wait = await limiter.hit(`avatar-upload:ip:${requesterKey(ip)}`, perIpHour, 3600);
    if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
  }

  /**
   * Removes avatars that no account shows and that are older than the grace: replaced pictures and uploads never
   * saved to a profile. The row goes first, conditionally (still unused), then its file; from then on the id can no
   * longer be set as an avatar (`ownsAvatarUrl`). Returns how many were removed.
   */
  async sweepUnused(now = Date.now()): Promise<number> {
    const cutoff = new Date(now - this.limits.keepMs).toISOString();
    const unused = (eb: ExpressionBuilder<Database, 'uploads'>) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('accounts')
            .select('accounts.id')
            .whereRef('accounts.avatar', '=', sql<string>`${AVATAR_PATH} || uploads.id`),
        ),
      );
    const stale = await this.db
      .selectFrom('uploads')
      .select(['id', 'storage_key'])
      .where('type', '=', 'avatar')
      .where('created_at', '<', cutoff)
      .where(unused)
      .orderBy('created_at')
      .limit(SWEEP_BATCH)
      .execute();
    let removed = 0;
    for (const row of stale) {
      const gone = await this.db.deleteFrom('uploads').where('id', '=', row.id).where(unused).executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) continue;
      await this.storage.delete(row.storage_key);
      removed += 1;
    }
    return removed;
  }

  async saveAvatar(accountId: string, data: Buffer): Promise<{ id: string; url: string }> {
    if (data.length > LIMITS.avatarMaxBytes)
      throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.avatarMaxBytes) });
    const sniffed = await fileTypeFromBuffer(data);
    if (!sniffed || !(LIMITS.avatarTypes as readonly string[]).includes(sniffed.mime)) {
      throw new AppError('UNSUPPORTED_FILE_TYPE');
    }
    const clean = await reencode(data, sniffed.mime);
    if (clean.length > LIMITS.avatarMaxBytes)
      throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.avatarMaxBytes) });
    const id = newId('file');
    const key = `avatars/${id}.${sniffed.ext}`;
    // The row first: a file in storage always has its row, so the sweep that removes rows removes every file.
    await this.db
      .insertInto('uploads')
      .values({
        id,
        account_id: accountId,
        type: 'avatar',
        mime: sniffed.mime,
        size: clean.length,
        storage_key: key,
        created_at: nowIso(),
      })
      .execute();
    try {
      await this.storage.put(key, clean, { contentType: sniffed.mime });
    } catch (e) {
      await this.db.deleteFrom('uploads').where('id', '=', id).execute();
      throw e;
    }
    return { id, url: `${AVATAR_PATH}${id}` };
  }

  /** Avatars are public once set: they show beside the account's name. */
  async read(id: string, range?: ByteRange): Promise<{ mime: string; file: StoredStream } | null> {
    const row = await this.db
      .selectFrom('uploads')
      .select(['mime', 'storage_key', 'type'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row || row.type !== 'avatar') return null;
    const file = await this.storage.getStream(row.storage_key, range);
    return file ? { mime: row.mime, file } : null;
  }

  async ownsAvatarUrl(url: string, accountId: string): Promise<boolean> {
    if (!url.startsWith(AVATAR_PATH)) return false;
    const id = url.slice(AVATAR_PATH.length);
    const row = await this.db
      .selectFrom('uploads')
      .select('account_id')
      .where('id', '=', id)
      .where('type', '=', 'avatar')
      .executeTakeFirst();
    return row?.account_id === accountId;
  }
}
