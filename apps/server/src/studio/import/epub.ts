import path from 'node:path';
import { DomUtils, parseDocument } from 'htmlparser2';
import { STUDIO_LIMITS } from '@polyvox/contracts';
import { DocumentBuilder, clean, refuse, type ImportedDocument } from '../document.js';
import { addParagraphs, blocksOf } from './html.js';
import { openZip, type ZipReader } from './zip.js';

type Document = ReturnType<typeof parseDocument>;
type Element = NonNullable<ReturnType<typeof DomUtils.findOne>>;

const COVER_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

const xml = (bytes: Buffer) => parseDocument(bytes.toString('utf8'), { xmlMode: true });
/** Elements by local name, whatever their namespace prefix (`dc:title`, `opf:item`, `item`). */
const local = (name: string) => (e: Element) => e.name === name || e.name.endsWith(`:${name}`);
const all = (root: Document | Element, name: string) => DomUtils.findAll(local(name), [root]);
const one = (root: Document | Element, name: string) => DomUtils.findOne(local(name), [root], true);
const text = (e: Element | null) => (e ? clean(DomUtils.textContent(e)) : '');

/** A path inside the archive from an href relative to `base` (an entry's path), without its fragment. */
function resolve(base: string, href: string): string {
  let target = href.split('#')[0]!;
  try {
    target = decodeURIComponent(target);
  } catch {
    // An href that is not percent-encoded properly is taken as written.
  }
  return path.posix.normalize(path.posix.join(path.posix.dirname(base), target)).replace(/^\/+/, '');
}

/**
 * An EPUB (2 or 3): the container names the package document (OPF), whose spine gives the reading order; the
 * book's own table of contents (the EPUB 3 navigation document, else the EPUB 2 NCX) names its chapters: a spine
 * file the contents name opens a chapter with that title, one it does not continues the chapter before. The title,
 * the author and the cover image come from the package's metadata.
 */
export async function importEpub(buffer: Buffer, field: string): Promise<ImportedDocument> {
  const zip = await openZip(buffer, field, 'EPUB');
  try {
    return await read(zip, field);
  } finally {
    zip.close();
  }
}

async function need(zip: ZipReader, name: string, field: string): Promise<Buffer> {
  const bytes = await zip.read(name);
  if (!bytes) throw refuse(field, 'not a valid EPUB file');
  return bytes;
}

async function read(zip: ZipReader, field: string): Promise<ImportedDocument> {
  const container = xml(await need(zip, 'META-INF/container.xml', field));
  const opfPath = one(container, 'rootfile')?.attribs['full-path'];
  if (!opfPath) throw refuse(field, 'not a valid EPUB file');
  const opf = xml(await need(zip, opfPath, field));
  const manifest = new Map(
    all(opf, 'item').map((item) => [
      item.attribs.id ?? '',
      {
        path: resolve(opfPath, item.attribs.href ?? ''),
        type: item.attribs['media-type'] ?? '',
        properties: (item.attribs.properties ?? '').split(/\s+/),
      },
    ]),
  );
  const spine = one(opf, 'spine');
  const order = (spine ? all(spine, 'itemref') : [])
    .filter((ref) => ref.attribs.linear !== 'no')
    .map((ref) => manifest.get(ref.attribs.idref ?? ''))
    .filter((item) => item !== undefined);
  if (order.length === 0) throw refuse(field, 'not a valid EPUB file');

  const builder = new DocumentBuilder(field);
  const metadata = one(opf, 'metadata') ?? opf;
  builder.title = text(one(metadata, 'title')) || null;
  builder.author = text(one(metadata, 'creator')) || null;
  builder.cover = await cover(zip, opf, manifest);

  const toc = await contents(zip, opf, manifest, spine);
  for (const item of order) {
    const page = await zip.read(item.path);
    if (!page) continue;
    const titles = toc.get(item.path) ?? [];
    if (titles.length > 0) builder.chapter(titles[0]!);
    let next = 1;
    for (const block of blocksOf(page.toString('utf8'))) {
      const heading = clean(block.text);
      // The chapter's own heading is its title, not a paragraph; a heading the contents name next opens that chapter.
      if (block.heading && titles[next - 1] === heading) continue;
      if (block.heading && titles[next] === heading) {
        builder.chapter(titles[next++]!);
        continue;
      }
      addParagraphs(builder, block.text);
    }
  }
  return builder.result();
}

type Manifest = Map<string, { path: string; type: string; properties: string[] }>;

/** The cover image: the EPUB 3 `cover-image` item, else the EPUB 2 `<meta name="cover">`; kept if small enough. */
async function cover(zip: ZipReader, opf: Document, manifest: Manifest): Promise<ImportedDocument['cover']> {
  const byProperty = [...manifest.values()].find((item) => item.properties.includes('cover-image'));
  const metaId = all(opf, 'meta').find((m) => m.attribs.name === 'cover')?.attribs.content;
  const item = byProperty ?? (metaId ? manifest.get(metaId) : undefined);
  if (!item || !COVER_TYPES.has(item.type)) return null;
  const entry = zip.names.includes(item.path) ? await zip.read(item.path) : null;
  return entry && entry.length <= STUDIO_LIMITS.coverMaxBytes ? { data: entry, type: item.type } : null;
}

/** The table of contents: each spine file's chapter titles, in the order the contents give them. */
async function contents(
  zip: ZipReader,
  opf: Document,
  manifest: Manifest,
  spine: Element | null,
): Promise<Map<string, string[]>> {
  const titles = new Map<string, string[]>();
  const add = (file: string, title: string) => {
    if (!title) return;
    const list = titles.get(file) ?? [];
    if (!list.includes(title)) list.push(title);
    titles.set(file, list);
  };
  const nav = [...manifest.values()].find((item) => item.properties.includes('nav'));
  const navBytes = nav ? await zip.read(nav.path) : null;
  if (nav && navBytes) {
    const doc = parseDocument(navBytes.toString('utf8'), { xmlMode: true });
    const tocNav = all(doc, 'nav').find((n) => /\btoc\b/.test(n.attribs['epub:type'] ?? n.attribs.role ?? '')) ?? one(doc, 'nav');
    for (const a of tocNav ? all(tocNav, 'a') : []) if (a.attribs.href) add(resolve(nav.path, a.attribs.href), text(a));
    if (titles.size > 0) return titles;
  }
  const ncxItem =
    manifest.get(spine?.attribs.toc ?? '') ?? [...manifest.values()].find((i) => i.type === 'application/x-dtbncx+xml');
  const ncxBytes = ncxItem ? await zip.read(ncxItem.path) : null;
  if (ncxItem && ncxBytes) {
    for (const point of all(xml(ncxBytes), 'navPoint')) {
      const src = one(point, 'content')?.attribs.src;
      const label = one(point, 'navLabel');
      if (src) add(resolve(ncxItem.path, src), text(label));
    }
  }
  return titles;
}
