import { readFileSync } from 'node:fs';
import { defineConfig, type PluginOption } from 'vite';
import react from '@vitejs/plugin-react';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
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
];

export default defineConfig({
  // plugin-react's types resolve the root's vite 8 (pulled in by vitest); at run time it serves this vite 7.
  plugins: [react() as unknown as PluginOption],
  define: { __POLYVOX_CLIENT_VERSION__: JSON.stringify(pkg.version) },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    rollupOptions: {
      // The contracts package is pure declarations: let unused schemas (and zod with them) drop out.
      treeshake: { moduleSideEffects: (id) => !id.includes('/packages/contracts/') },
      onwarn(warning, warn) {
        // zod's sources carry comments Rollup cannot place; harmless, and not ours to fix.
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules')) return;
        warn(warning);
      },
      output: {
        manualChunks: (id) => {
          if (!id.includes('node_modules')) return undefined;
          if (/@mantine|@floating-ui/.test(id)) return 'mantine';
          if (/@tabler/.test(id)) return 'icons';
          if (/react|scheduler|@tanstack|i18next/.test(id)) return 'vendor';
          return undefined;
        },
      },
    },
  },
  server: {
    host: '127.0.0.1',
    proxy: Object.fromEntries(API_PREFIXES.map((prefix) => [prefix, { target: apiTarget, changeOrigin: false }])),
  },
});
