import { DocumentBuilder, refuse, type ImportedDocument } from '../document.js';
import { paragraphsOf } from '../speakers.js';

/**
 * Bytes of a text file as text: UTF-8 (with or without its byte-order mark), UTF-16 with its mark, else GB18030
 * (the Chinese text files that are not UTF-8); bytes none of them reads are refused.
 */
export function decodeText(bytes: Uint8Array, field: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    try {
      return new TextDecoder('gb18030', { fatal: true }).decode(bytes);
    } catch (e) {
      throw refuse(field, 'not a text file (UTF-8, UTF-16 or GB18030)', e);
    }
  }
}

/** A line that opens a chapter in a plain text book: `Chapter 1`, `CHAPTER IV. The Storm`, `第一章 风起`, `第12回`. */
const CHAPTER_LINE =
  /^(?:(?:chapter|part|book)\s+(?:\d+|[ivxlcdm]+|one|two|three|four|five|six|seven|eight|nine|ten)\b[.:]?.{0,80}|第[0-9〇零一二三四五六七八九十百千两]+[章回节卷部篇].{0,40}|prologue|epilogue|序章|楔子|尾声)$/iu;

/**
 * Plain text: paragraphs are separated by blank lines (or, in a text without any, are one a line, as Chinese books
 * are written); a line such as `Chapter 3` or `第三章` opens a chapter.
 */
export function importText(text: string, field: string, builder = new DocumentBuilder(field)): ImportedDocument {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blankSeparated = /\n[ \t\u3000]*\n/.test(text.replace(/\r\n?/g, '\n').trim());
  let block: string[] = [];
  const flush = () => {
    for (const p of paragraphsOf(block)) builder.paragraph(p);
    block = [];
  };
  for (const raw of lines) {
    const line = raw.trim();
    if (CHAPTER_LINE.test(line)) {
      flush();
      builder.chapter(line);
    } else if (!line) flush();
    else if (blankSeparated) block.push(line);
    else {
      block.push(line);
      flush();
    }
  }
  flush();
  return builder.result();
}
