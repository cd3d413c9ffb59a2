#!/usr/bin/env node
// The documentation site (docs/site, Rspress): English and Simplified Chinese pages from docs/site/pages, built into
// docs/site/dist, which the server serves at /guide/.
//
//   node scripts/build-docs.mjs                      build for Polyvox's own /guide/
//   DOCS_BASE=/ DOCS_OUT=/tmp/site node scripts/build-docs.mjs   the same site for any static host, at its root
//
// Seven guides are taken from docs/ at build time, so that each stays one text (FROM_DOCS below): provenance, the
// operator's guide, phone sign-in and SMS, moderation, reports, history and Studio, in English from docs/<name>.md and in Chinese
// from docs/<name>.zh.md. After the build, the pages' inline scripts (Rspress's language and
// colour-scheme starters) move into files of their own, so that the server's Content-Security-Policy (`script-src
// 'self'`) lets them run, here and on any host with such a policy.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const site = path.join(root, 'docs/site');
const pages = path.join(site, 'pages');

/**
 * Pages made from docs/*.md: each guide's English text is docs/<name>.md (the repository links to it), its Simplified
 * Chinese text docs/<name>.zh.md beside it; `page` is where both land in their language's pages.
 */
export const FROM_DOCS = [
  { source: 'docs/provenance.md', page: 'topics/provenance.md' },
  { source: 'docs/operators.md', page: 'operators.md' },
  { source: 'docs/phone.md', page: 'self-hosting/phone.md' },
  { source: 'docs/moderation.md', page: 'self-hosting/moderation.md' },
  { source: 'docs/reports.md', page: 'self-hosting/reports.md' },
  { source: 'docs/history.md', page: 'topics/history.md' },
  { source: 'docs/studio.md', page: 'topics/studio.md' },
];

/** The source of a guide in one language: docs/x.md for English, docs/x.zh.md for Chinese. */
export const sourceOf = (source, lang) => (lang === 'en' ? source : source.replace(/\.md$/, `.${lang}.md`));

/** Markdown written for GitHub made safe for MDX: braces and angle brackets outside code are text, not JSX. */
export function mdxSafe(markdown) {
  const out = [];
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence || /^\s*(```|~~~)/.test(line)) {
      out.push(line);
      continue;
    }
    // Inline code spans stay as they are; elsewhere { } < are escaped.
    out.push(
      line
        .split(/(`[^`]*`)/)
        .map((part, i) => (i % 2 ? part : part.replace(/[{}<]/g, (c) => `\\${c}`)))
        .join(''),
    );
  }
  return out.join('\n');
}

/** Links into the repository (`../apps/…`, `deploy.md`) point at the site's page when there is one, else stay text. */
const SITE_PAGES = {
  'deploy.md': '/self-hosting/install',
  'models.md': '/self-hosting/models',
  'pronunciation.md': '/topics/pronunciation',
  'realtime.md': '/topics/realtime',
  'receipts.md': '/topics/credits',
  'operators.md': '/operators',
  'provenance.md': '/topics/provenance',
  'credits.md': '/topics/credits',
  'settings.md': '/self-hosting/settings',
  'phone.md': '/self-hosting/phone',
  'moderation.md': '/self-hosting/moderation',
  'reports.md': '/self-hosting/reports',
  'history.md': '/topics/history',
  'studio.md': '/topics/studio',
};

export function relink(markdown, lang) {
  const prefix = lang === 'en' ? '' : `/${lang}`;
  return markdown.replace(/\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, text, target) => {
    if (/^(https?:|mailto:|#)/.test(target)) return whole;
    const [file, anchor] = target.split('#');
    const page = SITE_PAGES[path.basename(file).replace(/\.zh\.md$/, '.md')];
    // A link that names its file (`[moderation.md](moderation.md)`) names the guide on the site.
    const label = text === path.basename(file) ? text.replace(/(\.zh)?\.md$/, '') : text;
    if (page) return `[${label}](${prefix}${page}${anchor ? `#${anchor}` : ''})`;
    // A file of the repository: named, since the site may be read away from it.
    const named = path.posix.normalize(file.replace(/^(\.\.\/)+/, ''));
    return text.includes(named) ? text : `${text} (\`${named}\`)`;
  });
}

export function writeGeneratedPages() {
  for (const { source, page } of FROM_DOCS) {
    for (const lang of ['en', 'zh']) {
      const from = sourceOf(source, lang);
      const out = mdxSafe(relink(fs.readFileSync(path.join(root, from), 'utf8'), lang));
      const file = path.join(pages, lang, page);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `{/* Generated from ${from} by scripts/build-docs.mjs: edit that file. */}\n\n${out}`);
    }
  }
}

/** Each inline <script> of every page becomes a file of its own, named by its content's hash, loaded in its place. */
export function externaliseInlineScripts(outDir, base) {
  const jsDir = path.join(outDir, 'static/js');
  fs.mkdirSync(jsDir, { recursive: true });
  let moved = 0;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.html')) {
        const html = fs.readFileSync(full, 'utf8');
        const next = html.replace(/<script>([\s\S]*?)<\/script>/g, (_, code) => {
          const name = `inline.${createHash('sha256').update(code).digest('hex').slice(0, 10)}.js`;
          fs.writeFileSync(path.join(jsDir, name), code);
          moved++;
          return `<script src="${base}static/js/${name}"></script>`;
        });
        if (next !== html) fs.writeFileSync(full, next);
      }
    }
  };
  walk(outDir);
  return moved;
}

export function buildDocs() {
  const base = process.env.DOCS_BASE ?? '/guide/';
  const outDir = path.resolve(process.env.DOCS_OUT ?? path.join(site, 'dist'));
  writeGeneratedPages();
  const rspress = path.join(root, 'node_modules/@rspress/core/bin/rspress.js');
  const run = spawnSync(process.execPath, [rspress, 'build', '-c', path.join(site, 'rspress.config.ts')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DOCS_BASE: base, DOCS_OUT: outDir },
  });
  if (run.status !== 0) throw new Error(`the documentation site's build failed (${run.status})`);
  externaliseInlineScripts(outDir, base.endsWith('/') ? base : `${base}/`);
  return outDir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = buildDocs();
  console.log(`[docs] built ${path.relative(root, out) || out}`);
}
