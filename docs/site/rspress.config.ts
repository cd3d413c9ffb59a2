import path from 'node:path';
import { defineConfig } from '@rspress/core';

// The documentation site. `npm run build` builds it for Polyvox's own /guide/; DOCS_BASE=/ (or any path) builds it
// for another static host. DOCS_OUT: where the files go (docs/site/dist by default, which the server serves).
const base = process.env.DOCS_BASE ?? '/guide/';

export default defineConfig({
  root: path.join(import.meta.dirname, 'pages'),
  base: base.endsWith('/') ? base : `${base}/`,
  outDir: process.env.DOCS_OUT ?? path.join(import.meta.dirname, 'dist'),
  title: 'Polyvox',
  description: 'Text to speech and voice cloning you run yourself',
  lang: 'en',
  // A Chinese browser's first visit to the English root goes to the Chinese pages; a link to a page in either language
  // (the console's, for one) stays where it points.
  route: { localeRedirect: 'only-default-lang' },
  locales: [
    { lang: 'en', label: 'English', title: 'Polyvox', description: 'Text to speech and voice cloning you run yourself' },
    { lang: 'zh', label: '简体中文', title: 'Polyvox', description: '可自行部署的语音合成与声音克隆平台' },
  ],
});
