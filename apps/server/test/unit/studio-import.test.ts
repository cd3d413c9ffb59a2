import { describe, expect, it } from 'vitest';
import { STUDIO_LIMITS, errorMessage } from '@polyvox/contracts';
import { importFile, importPasted } from '../../src/studio/import/index.js';
import { openZip } from '../../src/studio/import/zip.js';
import { DocumentBuilder, splitLong } from '../../src/studio/document.js';
import { importText } from '../../src/studio/import/text.js';
import { buildBomb, buildDocx, buildEpub } from '../support/studio-docs.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const rejection = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e as { code: string; params: Record<string, unknown>; status: number };
  }
  throw new Error('expected a refusal');
};

describe('Studio importers', () => {
  it('reads plain text: blank-line paragraphs, chapter lines, speakers', async () => {
    const doc = await importFile(
      Buffer.from(
        'Chapter 1\n\nIt was late.\nThe wind rose.\n\n"Stay," said Anna.\n\nChapter 2\n\nTom: We leave at dawn.\nAnna: Then sleep.\n',
      ),
      'book.txt',
      'from_document',
    );
    expect(doc.chapters.map((c) => c.title)).toEqual(['Chapter 1', 'Chapter 2']);
    expect(doc.chapters[0]!.paragraphs).toEqual([
      { text: 'It was late. The wind rose.', speaker: 'Narrator' },
      { text: '"Stay," said Anna.', speaker: 'Anna' },
    ]);
    expect(doc.chapters[1]!.paragraphs).toEqual([
      { text: 'We leave at dawn.', speaker: 'Tom' },
      { text: 'Then sleep.', speaker: 'Anna' },
    ]);
    expect(doc.speakers).toEqual(['Narrator', 'Anna', 'Tom']);
  });

  it('reads a Chinese text one paragraph a line, in GB18030 too, with 旁白 and the characters', async () => {
    const text =
      '第一章 风起\n　　夜深了。\n“快走！”小明说。\n小红：我不走。\n他说：“好吧。”\n第二章 天明\n小明笑着说：“早上好。”\n';
    const gb = Buffer.from(new TextEncoder().encode(text)); // UTF-8 first
    const doc = await importFile(gb, 'book.txt', 'from_document');
    expect(doc.narrator).toBe('旁白');
    expect(doc.chapters.map((c) => c.title)).toEqual(['第一章 风起', '第二章 天明']);
    expect(doc.chapters[0]!.paragraphs.map((p) => [p.speaker, p.text])).toEqual([
      ['旁白', '夜深了。'],
      ['小明', '“快走！”小明说。'],
      ['小红', '我不走。'],
      ['旁白', '他说：“好吧。”'],
    ]);
    expect(doc.chapters[1]!.paragraphs[0]!.speaker).toBe('小明');
    expect(doc.speakers).toEqual(['旁白', '小明', '小红']);
  });

  it('decodes GB18030 text that is not UTF-8', async () => {
    // "你好。" in GB18030.
    const doc = await importFile(Buffer.from([0xc4, 0xe3, 0xba, 0xc3, 0xa1, 0xa3]), 'a.txt', 'from_document');
    expect(doc.chapters[0]!.paragraphs[0]!.text).toBe('你好。');
  });

  it('reads Markdown: # title above ## chapters, lists and quotes, no code', async () => {
    const md =
      '# The Book\n\n## One\n\nFirst *words* and [a link](http://x).\n\n> Quoted line.\n\n```\ncode();\n```\n\n## Two\n\n- item one\n- item two\n\nAnna: Hello.  \nTom: Hi.\n';
    const doc = await importFile(Buffer.from(md), 'b.md', 'from_document');
    expect(doc.title).toBe('The Book');
    expect(doc.chapters.map((c) => c.title)).toEqual(['One', 'Two']);
    expect(doc.chapters[0]!.paragraphs.map((p) => p.text)).toEqual(['First words and a link.', 'Quoted line.']);
    expect(doc.chapters[1]!.paragraphs.map((p) => [p.speaker, p.text])).toEqual([
      ['Narrator', 'item one'],
      ['Narrator', 'item two'],
      ['Anna', 'Hello.'],
      ['Tom', 'Hi.'],
    ]);
    expect(importPasted('# A\n\ntext\n\n# B\n\nmore', 'markdown', 'text').chapters.map((c) => c.title)).toEqual(['A', 'B']);
  });

  it("reads an EPUB 3: its own contents' titles, title, author and cover", async () => {
    const doc = await importFile(await buildEpub({ cover: PNG }), 'book.epub', 'from_document');
    expect(doc.title).toBe('A Small Book');
    expect(doc.author).toBe('Jane Writer');
    expect(doc.cover).toEqual({ data: PNG, type: 'image/png' });
    expect(doc.chapters).toEqual([
      {
        title: 'The Storm',
        paragraphs: [
          { text: 'It was a dark night.', speaker: 'Narrator' },
          { text: '“Run,” said Anna.', speaker: 'Anna' },
        ],
      },
      {
        title: 'Morning',
        paragraphs: [
          { text: 'Good morning!', speaker: 'Tom' },
          { text: 'The sun came up & shone.', speaker: 'Narrator' },
        ],
      },
    ]);
  });

  it('reads an EPUB 2 by its NCX, whatever the file is called', async () => {
    const doc = await importFile(
      await buildEpub({ toc: 'ncx', chapters: [{ title: 'Only', body: '<p>One.</p><div>Two<br/>lines</div>' }] }),
      'noname',
      'from_document',
    );
    expect(doc.chapters).toEqual([
      {
        title: 'Only',
        paragraphs: [
          { text: 'One.', speaker: 'Narrator' },
          { text: 'Two lines', speaker: 'Narrator' },
        ],
      },
    ]);
    expect(doc.cover).toBeNull();
  });

  it('reads a DOCX: headings open chapters, properties give title and author', async () => {
    const docx = await buildDocx([
      { style: 'Heading1', text: '第一章' },
      { text: '夜深了。' },
      { text: '小红：我不走。' },
      { style: 'Heading2', text: '第二章' },
      { text: '“早上好。”小明说。' },
    ]);
    const doc = await importFile(docx, 'story.docx', 'from_document');
    expect(doc.title).toBe('Word Book');
    expect(doc.author).toBe('Li Lei');
    expect(doc.chapters.map((c) => [c.title, c.paragraphs.map((p) => p.speaker)])).toEqual([
      ['第一章', ['旁白', '小红']],
      ['第二章', ['小明']],
    ]);
  });

  it('refuses what it cannot read: binary, PDF, an archive of neither kind, a broken archive, an empty text', async () => {
    expect((await rejection(importFile(Buffer.from([1, 0, 2, 3]), 'x.bin', 'from_document'))).code).toBe('UNSUPPORTED_FILE_TYPE');
    expect((await rejection(importFile(Buffer.from('%PDF-1.7\n...'), 'x.pdf', 'from_document'))).code).toBe(
      'UNSUPPORTED_FILE_TYPE',
    );
    expect((await rejection(importFile(await buildBomb(10, 'readme.txt'), 'x.zip', 'from_document'))).code).toBe(
      'UNSUPPORTED_FILE_TYPE',
    );
    const broken = (await buildEpub()).subarray(0, 300);
    const e = await rejection(importFile(broken, 'x.epub', 'from_document'));
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', params: { field: 'from_document', rule: 'not a valid EPUB file' } });
    const noOpf = await buildBomb(10);
    expect(await rejection(importFile(noOpf, 'x.epub', 'from_document'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      params: { rule: 'not a valid EPUB file' },
    });
    expect(await rejection(importFile(Buffer.from('\n\n  \n'), 'x.txt', 'from_document'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      params: { rule: 'the document has no text' },
    });
  });

  it('refuses a zip bomb before inflating it, and an entry that inflates past its declared size', async () => {
    const bomb = await buildBomb(5_000_000);
    expect(bomb.length).toBeLessThan(50_000);
    const zip = await openZip(bomb, 'from_document', 'EPUB', { unzippedMaxBytes: 1_000_000, zipMaxEntries: 10 });
    expect(await rejection(zip.read('META-INF/container.xml'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      params: { rule: 'the archive expands past 1 MB' },
    });
    zip.close();
    // The same archive claiming its entry holds 10 bytes: yauzl stops inflating past them.
    const lying = Buffer.from(bomb);
    for (const [sig, method, at] of [
      [0x04034b50, 8, 22],
      [0x02014b50, 10, 24],
    ] as const) {
      for (let i = 0; i + 30 <= lying.length; i++)
        if (lying.readUInt32LE(i) === sig && lying.readUInt16LE(i + method) === 8) lying.writeUInt32LE(10, i + at);
    }
    const lied = await openZip(lying, 'from_document', 'EPUB', { unzippedMaxBytes: 1_000_000, zipMaxEntries: 10 });
    expect(await rejection(lied.read('META-INF/container.xml'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      params: { rule: 'not a valid EPUB file' },
    });
    lied.close();
    expect(
      await rejection(openZip(bomb, 'from_document', 'EPUB', { unzippedMaxBytes: 1_000_000, zipMaxEntries: 0 })),
    ).toMatchObject({ code: 'VALIDATION_FAILED', params: { rule: 'at most 0 files in the archive' } });
  });

  it('holds a document to its limits: size, characters, chapters, paragraphs', async () => {
    expect(await rejection(importFile(Buffer.alloc(STUDIO_LIMITS.fileMaxBytes + 1, 97), 'a.txt', 'from_document'))).toMatchObject(
      {
        code: 'FILE_TOO_LARGE',
        params: { limit: '20 MB' },
      },
    );
    const limits = { maxCharacters: 50, maxChapters: 2, maxParagraphs: 3, paragraphMaxLength: 5000, maxSpeakers: 10 };
    const small = (text: string) => importText(text, 'text', new DocumentBuilder('text', limits));
    expect(await rejection(() => small('x'.repeat(51)))).toMatchObject({ code: 'TEXT_TOO_LONG', params: { maxLength: 50 } });
    expect(await rejection(() => small('Chapter 1\na\nChapter 2\nb\nChapter 3\nc'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      params: { field: 'text', rule: 'at most 2 chapters' },
    });
    expect(await rejection(() => small('a\nb\nc\nd'))).toMatchObject({ params: { rule: 'at most 3 paragraphs' } });
    expect(await rejection(() => importPasted('x'.repeat(STUDIO_LIMITS.maxCharacters * 2 + 1), 'plain', 'text'))).toMatchObject({
      code: 'TEXT_TOO_LONG',
    });
  });

  it('cuts a paragraph longer than one request at sentence ends', () => {
    const sentence = 'This is a sentence of words. ';
    const pieces = splitLong(sentence.repeat(400).trim(), 5000);
    expect(pieces.length).toBe(3);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(5000);
      expect(p.endsWith('.')).toBe(true);
    }
    expect(pieces.join(' ')).toBe(sentence.repeat(400).trim());
    const zh = splitLong('天很黑。'.repeat(1500), 5000);
    expect(zh.join('')).toBe('天很黑。'.repeat(1500));
    expect(zh.every((p) => p.length <= 5000 && p.endsWith('。'))).toBe(true);
  });

  it('words its refusals in Chinese too', () => {
    const zh = (rule: string, locale: 'zh-CN' | 'zh-TW' = 'zh-CN') =>
      errorMessage('VALIDATION_FAILED', locale, { field: 'from_document', rule });
    expect(zh('not a valid EPUB file')).toBe('from_document 的值无效：不是有效的 EPUB 文件');
    expect(zh('at most 500 chapters', 'zh-TW')).toBe('from_document 的值無效：最多 500 個章節');
    expect(zh('the archive expands past 100 MB')).toBe('from_document 的值无效：压缩包解压后超过 100 MB');
    expect(zh('must be a voice you can use', 'zh-TW')).toBe('from_document 的值無效：須為你可以使用的聲音');
  });
});
