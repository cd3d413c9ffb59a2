import fs from 'node:fs';
import path from 'node:path';
import { FROM_DOCS, root, sourceOf } from '../../../../scripts/build-docs.mjs';

/** The documentation site's pages (docs/site/pages/<lang>/…), relative to the repository root. */
export const SITE_PAGES = path.resolve(import.meta.dirname, '../../../../docs/site/pages');

/** Languages whose fenced blocks are code a reader runs: each must say whether a test runs it. */
export const CODE_LANGS = new Set(['sh', 'bash', 'shell', 'js', 'javascript', 'mjs', 'py', 'python']);

export interface DocSample {
  /** `en/quick-start/index.md#2`: the page and the block's number on it. */
  id: string;
  page: string;
  lang: 'sh' | 'js' | 'python' | string;
  /** `runnable`: run against a started server; `static`: a command that cannot run there (installs, starts a server). */
  kind: 'runnable' | 'static' | 'unmarked';
  /** `expect="…"` in the fence's meta: what the sample's output must contain. */
  expect?: string;
  code: string;
}

const LANG_ALIASES: Record<string, string> = { bash: 'sh', shell: 'sh', javascript: 'js', mjs: 'js', py: 'python' };

/** The fenced blocks of one Markdown text, with the words after the language (```js runnable title="x.mjs"). */
export function fencedBlocks(markdown: string, page: string): DocSample[] {
  const samples: DocSample[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, rawLang, meta] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trim().startsWith(fence!); j++) body.push(lines[j]!.slice(indent!.length));
    i = j;
    const lang = LANG_ALIASES[rawLang!] ?? rawLang!;
    const words = meta!.split(/\s+/);
    const kind = words.includes('runnable') ? 'runnable' : words.includes('static') ? 'static' : 'unmarked';
    const expect = /expect="([^"]*)"/.exec(meta!)?.[1];
    samples.push({ id: `${page}#${samples.length + 1}`, page, lang, kind, ...(expect ? { expect } : {}), code: body.join('\n') });
  }
  return samples;
}

/** Every page of the site, relative to SITE_PAGES (`en/topics/voices.md`), generated ones included when `all`. */
export function sitePages(generated: boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.mdx?$/.test(e.name)) {
        const text = fs.readFileSync(full, 'utf8');
        if (generated || !text.startsWith('{/* Generated from')) out.push(path.relative(SITE_PAGES, full));
      }
    }
  };
  walk(SITE_PAGES);
  return out.sort();
}

/**
 * The code blocks of the site's pages: its own, and those of the guides it takes from docs/<name>.md at build time,
 * read from there (a checkout need not have built the site) under the page each becomes.
 */
export function siteSamples(): DocSample[] {
  const code = (s: DocSample) => CODE_LANGS.has(s.lang) || s.lang === 'sh';
  const own = sitePages(false).flatMap((page) => fencedBlocks(fs.readFileSync(path.join(SITE_PAGES, page), 'utf8'), page));
  const takenIn = ['en', 'zh'].flatMap((lang) =>
    FROM_DOCS.flatMap(({ source, page }) =>
      fencedBlocks(fs.readFileSync(path.join(root, sourceOf(source, lang)), 'utf8'), `${lang}/${page}`),
    ),
  );
  return [...own, ...takenIn].filter(code);
}
