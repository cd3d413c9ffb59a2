import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Writes `<file>.br` and `<file>.gz` beside every text file of the build (scripts, styles, html, svg, json) once it
 * is written: the server sends them as they are (`@fastify/static`'s preCompressed) to a browser that accepts them,
 * at the best compression, without spending a request's time on it. A file that would not shrink by a tenth is left
 * alone.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  return {
    name: 'polyvox-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      for (const file of walk(outDir)) {
        if (!/\.(js|mjs|css|html|svg|json|txt|webmanifest)$/.test(file)) continue;
        const data = fs.readFileSync(file);
        if (data.length < 1024) continue;
        const br = zlib.brotliCompressSync(data, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
        });
        const gz = zlib.gzipSync(data, { level: 9 });
        if (br.length < data.length * 0.9) fs.writeFileSync(`${file}.br`, br);
        if (gz.length < data.length * 0.9) fs.writeFileSync(`${file}.gz`, gz);
      }
    },
  };
}

/**
 * Writes the icon into index.html as a data: address (public/favicon.svg, its one source, stays published): a cold
 * visit saves the icon's request, about 1.4 KB with its headers (twice on the bench's usage page, where Chromium asked
 * for it again). The console's CSP allows data: images.
 */
function inlineFavicon(): Plugin {
  return {
    name: 'polyvox-inline-favicon',
    apply: 'build',
    transformIndexHtml(html) {
      const svg = fs.readFileSync(path.resolve(import.meta.dirname, 'public/favicon.svg'), 'utf8').trim();
      const text = svg.replace(/\s+/g, ' ').replace(/"/g, "'");
      const uri = `data:image/svg+xml,${text.replace(/[<>#%]/g, (c) => encodeURIComponent(c))}`;
      return html.replace('href="/favicon.svg"', `href="${uri}"`);
    },
  };
}

/**
 * Mantine's Modal and Drawer import its whole ScrollArea (about 5 KB over the wire) only to ask whether they were
 * given `ScrollArea.Autosize` as their scroll component; the console's dialogs scroll natively, so a sign-in dialog
 * on a first page fetched it for nothing. The same question is asked by the component's display name, without the
 * import. The build fails if Mantine's code no longer has the expected shape, rather than ship it unchanged unnoticed.
 */
function mantineDialogsWithoutScrollArea(): Plugin {
  const FILE = /@mantine[\\/]core[\\/]esm[\\/]components[\\/](Modal[\\/]ModalRoot|Drawer[\\/]DrawerRoot)\.mjs$/;
  const IMPORT = "import { ScrollArea } from '../ScrollArea/ScrollArea.mjs';\n";
  const TEST = 'scrollAreaComponent === ScrollArea.Autosize';
  return {
    name: 'polyvox-mantine-dialogs-without-scroll-area',
    apply: 'build',
    transform(code, id) {
      if (!FILE.test(id)) return null;
      if (!code.includes(IMPORT) || code.split(TEST).length !== 2)
        this.error(`${id}: Mantine changed; update mantineDialogsWithoutScrollArea in vite.config.ts.`);
      return code.replace(IMPORT, '').replace(TEST, `scrollAreaComponent?.displayName === '@mantine/core/ScrollAreaAutosize'`);
    },
  };
}

/**
 * Fails the build when the bundle uses a Mantine class (`m_…`, from a component's CSS module) that no emitted style
 * sheet defines: the console imports Mantine's styles per component (src/mantine.css), and a component added to a
 * page without its file there would otherwise render unstyled.
 */
function mantineStylesCheck(): Plugin {
  const CLASS = /\bm_[0-9a-f]{6,9}\b/g;
  const known = new Set(
    fs.readFileSync(path.resolve(import.meta.dirname, '../../node_modules/@mantine/core/styles.css'), 'utf8').match(CLASS),
  );
  return {
    name: 'polyvox-mantine-styles-check',
    apply: 'build',
    generateBundle(_options, bundle) {
      const used = new Set<string>();
      const defined = new Set<string>();
      for (const file of Object.values(bundle)) {
        if (file.type === 'chunk') for (const c of file.code.match(CLASS) ?? []) used.add(c);
        else if (file.fileName.endsWith('.css')) for (const c of String(file.source).match(CLASS) ?? []) defined.add(c);
      }
      const missing = [...used].filter((c) => known.has(c) && !defined.has(c));
      if (missing.length > 0)
        this.error(`Mantine classes used but not styled: ${missing.join(', ')}. Add the components' files to src/mantine.css.`);
    },
  };
}

const apiTarget = process.env.POLYVOX_API ?? 'http://127.0.0.1:8080';

// Everything the server answers besides the console itself; the console uses hash routes, so only `/` is ours.
const API_PREFIXES = [
  '/accounts',
  '/auth',
  '/verification',
  '/uploads',
  '/files',
  '/docs',
  '/api',
  '/tts',
  '/voice',
  '/files_upload',
  '/products',
  '/v1',
  '/stats',
  '/pay',
  '/payments',
  '/healthz',
  '/metrics',
  '/openapi.json',
  '/reference',
  // The server's own images under /assets (the built console's files are /assets/<name>-<hash>.js|css).
  '/assets/avatars',
  '/assets/model.svg',
];

export default defineConfig({
  plugins: [react(), inlineFavicon(), mantineDialogsWithoutScrollArea(), mantineStylesCheck(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Source maps stay out of the published console: they would hand out the whole source.
    sourcemap: false,
    // Every browser the console supports preloads modules itself (Chromium, Firefox 115+, Safari 17+):
    // the polyfill would only add to the first page.
    modulePreload: { polyfill: false },
    // Flags are fetched when the language menu shows them, not carried inside the first script.
    assetsInlineLimit: (file) => (file.includes('flag-icons') ? false : undefined),
    rolldownOptions: {
      // The contracts package is pure declarations: let unused schemas (and zod with them) drop out.
      treeshake: { moduleSideEffects: (id) => !id.includes('/packages/contracts/') },
      output: {
        // Chunks are named by their hash alone: the first script lists every lazy chunk's dependencies by
        // file name, and module names there would only add to the first page.
        chunkFileNames: 'assets/[hash].js',
        codeSplitting: {
          groups: [
            {
              name: 'vendor',
              test: /node_modules[\\/](react|react-dom|react-router|scheduler|@tanstack|i18next|react-i18next)[\\/]/,
              priority: 2,
            },
            // Everything else the first page needs, in one file: every module of it is loaded before the page runs
            // anyway, and as ~40 files shared with lazy pages it cost ~40 requests' headers and compressed worse.
            { name: 'shell', tags: ['$initial'], priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    host: '127.0.0.1',
    proxy: Object.fromEntries(API_PREFIXES.map((prefix) => [prefix, { target: apiTarget, changeOrigin: false }])),
  },
});
