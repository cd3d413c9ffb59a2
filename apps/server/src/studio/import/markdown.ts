import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString } from 'mdast-util-to-string';
import { DocumentBuilder, type ImportedDocument } from '../document.js';
import { paragraphsOf } from '../speakers.js';

type RootContent = ReturnType<typeof fromMarkdown>['children'][number];
/** Any node, as far as its words go. */
interface Node {
  type: string;
  value?: unknown;
  children?: Node[];
}

/**
 * Markdown (CommonMark, read by mdast-util-from-markdown): `#` and `##` headings open chapters (a single `#` that
 * opens the document above `##` chapters is the book's title instead); paragraphs, list items and quotes are
 * paragraphs; code, HTML, tables and images are not read aloud.
 */
export function importMarkdown(text: string, field: string): ImportedDocument {
  const builder = new DocumentBuilder(field);
  const root = fromMarkdown(text);
  const nodes = root.children;
  const h1 = nodes.filter((n) => n.type === 'heading' && n.depth === 1);
  const hasH2 = nodes.some((n) => n.type === 'heading' && n.depth === 2);
  const titleNode = h1.length === 1 && hasH2 && nodes.find((n) => n.type !== 'html') === h1[0] ? h1[0] : null;
  if (titleNode) builder.title = toString(titleNode).trim() || null;
  for (const node of nodes) {
    if (node === titleNode) continue;
    read(node, builder);
  }
  return builder.result();
}

function read(node: RootContent, builder: DocumentBuilder): void {
  switch (node.type) {
    case 'heading':
      if (node.depth <= 2) builder.chapter(toString(node));
      else builder.paragraph(toString(node));
      return;
    case 'paragraph':
      for (const p of paragraphsOf(spoken(node).split('\n'))) builder.paragraph(p);
      return;
    case 'list':
    case 'listItem':
    case 'blockquote':
      for (const child of node.children) read(child, builder);
      return;
    default:
      // code, html, table, thematicBreak, definition, footnotes: nothing to say.
      return;
  }
}

/** A paragraph's words: its text, links' text and emphasis, without images or inline HTML. */
function spoken(node: Node): string {
  if (node.type === 'image' || node.type === 'imageReference' || node.type === 'html') return '';
  if (node.type === 'break') return '\n';
  if (node.children) return node.children.map((c) => spoken(c)).join('');
  return typeof node.value === 'string' ? node.value : '';
}
