import type { Kysely } from 'kysely';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { LIMITS } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';

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

/** Accepts a file only for what its bytes are, never for its name or declared type. */
export class UploadsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly storage: Storage,
  ) {}

  async saveAvatar(accountId: string, data: Buffer): Promise<{ id: string; url: string }> {
    if (data.length > LIMITS.avatarMaxBytes) throw new AppError('FILE_TOO_LARGE', { limit: '2 MB' });
    const sniffed = await fileTypeFromBuffer(data);
    if (!sniffed || !(LIMITS.avatarTypes as readonly string[]).includes(sniffed.mime)) {
      throw new AppError('UNSUPPORTED_FILE_TYPE');
    }
    const clean = await reencode(data, sniffed.mime);
    if (clean.length > LIMITS.avatarMaxBytes) throw new AppError('FILE_TOO_LARGE', { limit: '2 MB' });
    const id = newId('file');
    const key = `avatars/${id}.${sniffed.ext}`;
    await this.storage.put(key, clean, { contentType: sniffed.mime });
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
