import path from 'node:path';
import { STUDIO_LIMITS, sizeLimitText, type StudioDocumentType } from '@polyvox/contracts';
import { AppError } from '../../platform/errors.js';
import type { ImportedDocument } from '../document.js';
import { importDocx } from './docx.js';
import { importEpub } from './epub.js';
import { importMarkdown } from './markdown.js';
import { decodeText, importText } from './text.js';
import { openZip } from './zip.js';

export type { ImportedDocument } from '../document.js';

const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');

/**
 * What kind of document the bytes are: an archive by what it holds (an EPUB's container, a Word document's body),
 * anything else by its name (`.md`, `.markdown`: Markdown) and otherwise plain text. An archive of neither kind, or
 * binary bytes (a PDF, an image), is 415 UNSUPPORTED_FILE_TYPE.
 */
export async function documentType(bytes: Buffer, filename: string, field: string): Promise<StudioDocumentType> {
  const ext = path.extname(filename).toLowerCase();
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC)) {
    const zip = await openZip(bytes, field, ext === '.docx' ? 'DOCX' : 'EPUB');
    try {
      if (zip.has('META-INF/container.xml')) return 'epub';
      if (zip.has('word/document.xml')) return 'docx';
    } finally {
      zip.close();
    }
    throw new AppError('UNSUPPORTED_FILE_TYPE');
  }
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!utf16 && bytes.subarray(0, 8192).includes(0)) throw new AppError('UNSUPPORTED_FILE_TYPE');
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') throw new AppError('UNSUPPORTED_FILE_TYPE');
  return ext === '.md' || ext === '.markdown' ? 'md' : 'txt';
}

/** A file sent to make a project: its size checked first (413 FILE_TOO_LARGE), then read by its kind's importer. */
export async function importFile(bytes: Buffer, filename: string, field: string): Promise<ImportedDocument> {
  if (bytes.length > STUDIO_LIMITS.fileMaxBytes)
    throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(STUDIO_LIMITS.fileMaxBytes) });
  if (bytes.length === 0) throw new AppError('PARAMETERS_NEEDED', { field });
  switch (await documentType(bytes, filename, field)) {
    case 'epub':
      return importEpub(bytes, field);
    case 'docx':
      return importDocx(bytes, field);
    case 'md':
      return importMarkdown(checkedText(decodeText(bytes, field)), field);
    case 'txt':
      return importText(checkedText(decodeText(bytes, field)), field);
  }
}

/** Text pasted in: plain, or Markdown when `format` says so; longer than a project holds is TEXT_TOO_LONG at once. */
export function importPasted(text: string, format: 'plain' | 'markdown', field: string): ImportedDocument {
  checkedText(text);
  return format === 'markdown' ? importMarkdown(text, field) : importText(text, field);
}

/**
 * A text far past the character limit is refused before it is parsed (markup and whitespace may make a text up to
 * twice as long as what is spoken; the exact count is held while it is read).
 */
function checkedText(text: string): string {
  if (text.length > STUDIO_LIMITS.maxCharacters * 2)
    throw new AppError('TEXT_TOO_LONG', { maxLength: STUDIO_LIMITS.maxCharacters });
  return text;
}
