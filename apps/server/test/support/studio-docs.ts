import JSZip from 'jszip';

/** Tiny EPUB and DOCX files built in memory, for the importers' tests. */

const xhtml = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body>${body}</body></html>`;

export interface EpubOptions {
  /** EPUB 3 navigation document (default) or an EPUB 2 NCX. */
  toc?: 'nav' | 'ncx';
  cover?: Buffer;
  chapters?: { title: string; body: string }[];
}

export async function buildEpub(options: EpubOptions = {}): Promise<Buffer> {
  const chapters = options.chapters ?? [
    { title: 'The Storm', body: '<h1>The Storm</h1><p>It was a dark night.</p><p>“Run,” said Anna.</p>' },
    { title: 'Morning', body: '<h1>Morning</h1><p>Tom: Good morning!</p><p>The sun came up &amp; shone.</p>' },
  ];
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' });
  zip.file(
    'META-INF/container.xml',
    `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
  );
  const items = chapters.map((_, i) => `<item id="c${i}" href="text/ch${i}.xhtml" media-type="application/xhtml+xml"/>`);
  const refs = chapters.map((_, i) => `<itemref idref="c${i}"/>`);
  const nav = options.toc !== 'ncx';
  if (nav) items.push('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>');
  else items.push('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>');
  if (options.cover) items.push('<item id="cov" href="images/cover.png" media-type="image/png" properties="cover-image"/>');
  zip.file(
    'OEBPS/content.opf',
    `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>A Small Book</dc:title><dc:creator>Jane Writer</dc:creator><meta name="cover" content="cov"/></metadata><manifest>${items.join('')}</manifest><spine${nav ? '' : ' toc="ncx"'}><itemref idref="front" linear="no"/>${refs.join('')}</spine></package>`,
  );
  chapters.forEach((c, i) => zip.file(`OEBPS/text/ch${i}.xhtml`, xhtml(c.body)));
  if (nav)
    zip.file(
      'OEBPS/nav.xhtml',
      xhtml(
        `<nav epub:type="toc"><ol>${chapters.map((c, i) => `<li><a href="text/ch${i}.xhtml">${c.title}</a></li>`).join('')}</ol></nav>`,
      ),
    );
  else
    zip.file(
      'OEBPS/toc.ncx',
      `<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap>${chapters
        .map(
          (c, i) =>
            `<navPoint id="p${i}"><navLabel><text>${c.title}</text></navLabel><content src="text/ch${i}.xhtml"/></navPoint>`,
        )
        .join('')}</navMap></ncx>`,
    );
  if (options.cover) zip.file('OEBPS/images/cover.png', options.cover);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

export async function buildDocx(paragraphs: { style?: 'Heading1' | 'Heading2'; text: string }[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
  );
  zip.file(
    'word/_rels/document.xml.rels',
    `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
  );
  const style = (id: string, name: string) => `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/></w:style>`;
  zip.file(
    'word/styles.xml',
    `<?xml version="1.0"?><w:styles ${W}>${style('Heading1', 'heading 1')}${style('Heading2', 'heading 2')}</w:styles>`,
  );
  const body = paragraphs
    .map(
      (p) =>
        `<w:p>${p.style ? `<w:pPr><w:pStyle w:val="${p.style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${p.text}</w:t></w:r></w:p>`,
    )
    .join('');
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`);
  zip.file(
    'docProps/core.xml',
    `<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Word Book</dc:title><dc:creator>Li Lei</dc:creator></cp:coreProperties>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** A zip whose one entry inflates to `bytes` of zeros (a few KB compressed): a zip bomb in miniature. */
export async function buildBomb(bytes: number, name = 'META-INF/container.xml'): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(name, Buffer.alloc(bytes));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}
