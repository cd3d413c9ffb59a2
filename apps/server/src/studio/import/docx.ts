import mammoth from 'mammoth';
import { DomUtils, parseDocument } from 'htmlparser2';
import { DocumentBuilder, clean, refuse, type ImportedDocument } from '../document.js';
import { addParagraphs, blocksOf } from './html.js';
import { openZip } from './zip.js';

/**
 * A Word document (DOCX), read with mammoth: `Heading 1` and `Heading 2` paragraphs open chapters, other headings
 * and paragraphs are paragraphs; the title and author come from its properties (docProps/core.xml). The archive is
 * first read through the guarded zip reader, every part mammoth may read (all but the media), so mammoth only
 * ever inflates parts already known to fit the limits.
 */
export async function importDocx(buffer: Buffer, field: string): Promise<ImportedDocument> {
  const zip = await openZip(buffer, field, 'DOCX');
  let core: Buffer | null;
  try {
    if (!zip.has('word/document.xml')) throw refuse(field, 'not a valid DOCX file');
    for (const name of zip.names) if (!name.startsWith('word/media/')) await zip.read(name);
    core = await zip.read('docProps/core.xml');
  } finally {
    zip.close();
  }
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer },
      // Images are not read aloud: their bytes are never read.
      { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) },
    );
    html = result.value;
  } catch (e) {
    throw refuse(field, 'not a valid DOCX file', e);
  }
  const builder = new DocumentBuilder(field);
  if (core) {
    const doc = parseDocument(core.toString('utf8'), { xmlMode: true });
    const first = (tag: string) => {
      const el = DomUtils.findOne((e) => e.name === tag, doc.children, true);
      return el ? clean(DomUtils.textContent(el)) || null : null;
    };
    builder.title = first('dc:title');
    builder.author = first('dc:creator');
  }
  for (const block of blocksOf(html)) {
    if (block.heading === 1 || block.heading === 2) builder.chapter(block.text);
    else addParagraphs(builder, block.text);
  }
  return builder.result();
}
