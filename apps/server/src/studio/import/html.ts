import { Parser } from 'htmlparser2';
import type { DocumentBuilder } from '../document.js';
import { paragraphsOf } from '../speakers.js';

/** A block of an HTML or XHTML page: a heading (its level) or a paragraph; `<br>` lines kept as `\n`. */
export interface Block {
  heading: number;
  text: string;
}

const BLOCKS = new Set([
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'dl',
  'dd',
  'dt',
  'blockquote',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'main',
  'body',
  'pre',
  'table',
  'tr',
  'td',
  'th',
  'figure',
  'figcaption',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
]);
/** Elements whose text is never spoken: scripts, styles, ruby annotations, drawings, the page's head. */
const SILENT = new Set(['script', 'style', 'head', 'title', 'rt', 'rp', 'svg', 'math', 'noscript', 'template', 'nav']);

/** The blocks of a page, read with htmlparser2 (forgiving of malformed markup; entities decoded). */
export function blocksOf(html: string): Block[] {
  const blocks: Block[] = [];
  let text = '';
  let heading = 0;
  let silent = 0;
  const flush = () => {
    if (text.trim()) blocks.push({ heading, text });
    text = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (SILENT.has(name)) silent++;
        else if (name === 'br') text += '\n';
        else if (BLOCKS.has(name)) {
          flush();
          if (/^h[1-6]$/.test(name)) heading = Number(name[1]);
        }
      },
      ontext(data) {
        if (silent === 0) text += data;
      },
      onclosetag(name) {
        if (SILENT.has(name)) silent = Math.max(0, silent - 1);
        else if (BLOCKS.has(name)) {
          flush();
          if (/^h[1-6]$/.test(name)) heading = 0;
        }
      },
    },
    { decodeEntities: true, recognizeSelfClosing: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return blocks;
}

/** Adds a block's paragraphs (a script's speaker lines one each). */
export function addParagraphs(builder: DocumentBuilder, text: string): void {
  for (const p of paragraphsOf(text.split('\n'))) builder.paragraph(p);
}
