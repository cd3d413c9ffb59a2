/**
 * A small Markdown reader for the terms, privacy and updates documents: headings, paragraphs,
 * lists, quotes, code, rules, tables, and inline code / strong / emphasis / links. It builds a tree
 * that React renders as elements, so no HTML from the document ever reaches the page.
 */
export type Inline =
  | { type: 'text'; value: string }
  | { type: 'code'; value: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] };

export type Block =
  | { type: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'list'; ordered: boolean; start: number; items: Inline[][] }
  | { type: 'quote'; children: Block[] }
  | { type: 'code'; lang: string; value: string }
  | { type: 'rule' }
  | { type: 'table'; header: Inline[][]; rows: Inline[][][] };

const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s](?:[^*]*[^*\s])?)\*|(?<![\p{L}\p{N}])_([^_\s](?:[^_]*[^_\s])?)_(?![\p{L}\p{N}])|\[([^\]]+)\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)|<((?:https?:\/\/|mailto:)[^>\s]+)>/gu;

/** Links may leave for http(s) and mail, or stay on the site; anything else (javascript:, data:) is text. */
export function safeHref(href: string): string | null {
  const trimmed = href.trim();
  if (/^(https?:|mailto:)/i.test(trimmed)) return trimmed;
  if (/^(#|\/(?!\/)|\.\/)/.test(trimmed)) return trimmed;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !trimmed.startsWith('//')) return trimmed;
  return null;
}

export function parseInline(source: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  const push = (node: Inline) => {
    const prev = out[out.length - 1];
    if (node.type === 'text' && prev?.type === 'text') prev.value += node.value;
    else out.push(node);
  };
  for (const m of source.matchAll(INLINE)) {
    const index = m.index ?? 0;
    if (index > last) push({ type: 'text', value: source.slice(last, index) });
    last = index + m[0].length;
    if (m[2] !== undefined) push({ type: 'code', value: m[2].trim() || m[2] });
    else if (m[3] !== undefined || m[4] !== undefined) push({ type: 'strong', children: parseInline(m[3] ?? m[4] ?? '') });
    else if (m[5] !== undefined || m[6] !== undefined) push({ type: 'em', children: parseInline(m[5] ?? m[6] ?? '') });
    else if (m[7] !== undefined && m[8] !== undefined) {
      const href = safeHref(m[8]);
      const children = parseInline(m[7]);
      if (href) push({ type: 'link', href, children });
      else children.forEach(push);
    } else if (m[9] !== undefined)
      push({ type: 'link', href: m[9], children: [{ type: 'text', value: m[9].replace(/^mailto:/, '') }] });
  }
  if (last < source.length) push({ type: 'text', value: source.slice(last) });
  return out;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const ORDERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function cells(line: string): Inline[][] {
  const trimmed = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return trimmed.split('|').map((c) => parseInline(c.trim()));
}

function startsBlock(line: string, next: string | undefined): boolean {
  return (
    HEADING.test(line) ||
    RULE.test(line) ||
    FENCE.test(line) ||
    BULLET.test(line) ||
    ORDERED.test(line) ||
    QUOTE.test(line) ||
    (line.includes('|') && next !== undefined && TABLE_SEP.test(next))
  );
}

export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(fence[1] ?? '```')) body.push(lines[i++] ?? '');
      i++;
      blocks.push({ type: 'code', lang: fence[2] ?? '', value: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] ?? '#').length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ type: 'heading', level, children: parseInline(heading[2] ?? '') });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ type: 'rule' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? '')) body.push(QUOTE.exec(lines[i++] ?? '')?.[1] ?? '');
      blocks.push({ type: 'quote', children: parseMarkdown(body.join('\n')) });
      continue;
    }
    const bullet = BULLET.test(line);
    const ordered = ORDERED.exec(line);
    if (bullet || ordered) {
      const pattern = bullet ? BULLET : ORDERED;
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i] ?? '';
        const m = pattern.exec(current);
        if (m) items.push((bullet ? m[1] : m[2]) ?? '');
        else if (current.trim() && /^\s+/.test(current) && items.length) items[items.length - 1] += ` ${current.trim()}`;
        else break;
        i++;
      }
      blocks.push({ type: 'list', ordered: !bullet, start: ordered ? Number(ordered[1]) : 1, items: items.map(parseInline) });
      continue;
    }
    if (line.includes('|') && TABLE_SEP.test(lines[i + 1] ?? '')) {
      const header = cells(line);
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && (lines[i] ?? '').includes('|') && (lines[i] ?? '').trim()) rows.push(cells(lines[i++] ?? ''));
      blocks.push({ type: 'table', header, rows });
      continue;
    }
    const para: string[] = [line.trim()];
    i++;
    while (i < lines.length && (lines[i] ?? '').trim() && !startsBlock(lines[i] ?? '', lines[i + 1])) {
      para.push((lines[i++] ?? '').trim());
    }
    blocks.push({ type: 'paragraph', children: parseInline(para.join(' ')) });
  }
  return blocks;
}

/** Documents often open with "# <title>"; the page already shows the title above them. */
export function stripLeadingTitle(content: string, title: string): string {
  const match = /^\s*#\s+(.+?)\s*#*\s*(?:\r?\n|$)/.exec(content);
  if (match && match[1]?.trim().toLowerCase() === title.trim().toLowerCase())
    return content.slice(match[0].length).replace(/^\s+/, '');
  return content;
}
