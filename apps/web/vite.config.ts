import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

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
  plugins: [react()],
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
            },
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
