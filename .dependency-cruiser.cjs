/* global module */
// The import rules `npm run lint` checks (dependency-cruiser, type-only imports included): no cycles anywhere;
// packages never import the apps; the console and the server never import each other; inside apps/server/src,
// each folder may import only the folders below it in SERVER_LAYERS (the list runs bottom to top), inside its
// synthesis/ folder the same by SYNTHESIS_LAYERS, and inside packages/speech/src likewise by SPEECH_LAYERS.
// `npm run structure` prints the figures (arrows, upward arrows, cycles, largest files) from the same list.

/** apps/server/src, bottom to top. A folder imports only folders before it; entries in one inner list are peers
 * that import neither each other nor anything after their group. The composition (the root files and roles/) is the
 * top: nothing below imports it. */
const SERVER_LAYERS = [
  ['platform'],
  ['provenance', 'audit'],
  ['http'],
  [
    'api-keys',
    'docs',
    'stats',
    'uploads',
    'sessions',
    'pronunciation',
    'operators',
    'models',
    'providers',
    'settings',
    'moderation',
    'protected-voices',
    'history',
  ],
  ['credits'],
  ['usage', 'accounts'],
  ['auth'],
  ['orders'],
  ['codes'],
  ['payments', 'invoices'],
  ['speech'],
  ['voices'],
  ['synthesis'],
  ['studio'],
  ['design', 'engines', 'dialogue'],
  ['account-admin', 'overview'],
  ['reports'],
  ['composition'],
  ['roles'],
  ['admin', '(root)'],
];

/** apps/server/src/synthesis, bottom to top, read as SERVER_LAYERS is: its own files (the service, its types, the
 * held work, the shared route helpers), the answer's shapes every dialect writes, the jobs, the queue transport
 * (which carries jobs), then the dialects the server speaks, none of which imports another. */
const SYNTHESIS_LAYERS = [['(root)'], ['output'], ['jobs'], ['queue'], ['native', 'openai', 'elevenlabs', 'realtime']];

/**
 * packages/speech/src, bottom to top, as SERVER_LAYERS. formats/ stands alone (the console imports it); core/ holds
 * the shapes, errors and quality ranks every part names; threads/ the general worker-thread helpers; dsp/ the signal
 * processing with the one FFT; pool/ the synthesis worker threads; speech/ the parts `createSpeech` is made of; the
 * root (speech.ts, index.ts) is the public API.
 */
const SPEECH_LAYERS = [
  ['formats'],
  ['core'],
  ['threads', 'dsp'],
  ['catalogue', 'watermark'],
  ['text', 'audio'],
  ['engines', 'analysis'],
  ['pipeline'],
  ['pool'],
  ['speech'],
  ['(root)'],
];

const folderPattern = (src, name) => (name === '(root)' ? `${src}[^/]+$` : `${src}${name}/`);

function layerRules(layers, src, prefix, listName) {
  const anyOf = (names) => `(${names.map((n) => folderPattern(src, n)).join('|')})`;
  const rules = [];
  layers.forEach((group, i) => {
    const above = layers.slice(i + 1).flat();
    for (const name of group) {
      const peers = group.filter((other) => other !== name);
      const forbidden = [...above, ...peers];
      if (forbidden.length === 0) continue;
      const folder = `${src.slice(1)}${name === '(root)' ? '' : `${name}/`}`;
      rules.push({
        name: `${prefix}-layer-${name === '(root)' ? 'root' : name}`,
        comment: `${folder} imports only the folders below it (.dependency-cruiser.cjs, ${listName})`,
        severity: 'error',
        from: { path: folderPattern(src, name) },
        to: { path: anyOf(forbidden) },
      });
    }
  });
  return rules;
}

const SERVER = '^apps/server/src/';
const SPEECH = '^packages/speech/src/';
const SYNTHESIS = `${SERVER}synthesis/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle of imports, type-only ones included: move what both sides need to a file below them.',
      severity: 'error',
      from: { path: '^(apps|packages)/' },
      to: { circular: true },
    },
    {
      name: 'packages-not-apps',
      comment: 'packages/* are used by the apps and never import them.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'contracts-import-no-package',
      comment: 'packages/contracts is the bottom: shapes, errors and limits, with no other package of ours.',
      severity: 'error',
      from: { path: '^packages/contracts/' },
      to: { path: '^packages/(?!contracts/)' },
    },
    {
      name: 'web-not-server',
      comment: 'The console talks to the server over HTTP only.',
      severity: 'error',
      from: { path: '^apps/web/' },
      to: { path: '^apps/server/' },
    },
    {
      name: 'server-not-web',
      comment: 'The server serves the built console; it never imports its code.',
      severity: 'error',
      from: { path: '^apps/server/' },
      to: { path: '^apps/web/' },
    },
    {
      name: 'formats-no-node',
      comment: '@polyvox/speech/formats is imported by the console: no Node built-ins.',
      severity: 'error',
      from: { path: '^packages/speech/src/formats/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'formats-alone',
      comment: '@polyvox/speech/formats stands alone: nothing else of the engine comes with it into the console.',
      severity: 'error',
      from: { path: '^packages/speech/src/formats/' },
      to: { path: '^packages/speech/src/(?!formats/)' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing.',
      severity: 'error',
      from: { path: '^(apps|packages)/[^/]+/src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'speech-public-api-only',
      comment:
        '@polyvox/speech is used through its entry points (index.ts, formats/index.ts, watermark/index.ts): its internals are its own.',
      severity: 'error',
      from: { path: '^(apps|e2e)/' },
      to: { path: `${SPEECH}(?!index\\.ts$|formats/index\\.ts$|watermark/index\\.ts$)` },
    },
    {
      name: 'bench-speech-entry-points',
      comment:
        'The benchmarks use the entry points too, and /measure (measure.ts) for the parts they time one at a time below the facade.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: `${SPEECH}(?!index\\.ts$|formats/index\\.ts$|watermark/index\\.ts$|measure\\.ts$)` },
    },
    ...layerRules(SERVER_LAYERS, SERVER, 'server', 'SERVER_LAYERS'),
    ...layerRules(SPEECH_LAYERS, SPEECH, 'speech', 'SPEECH_LAYERS'),
    ...layerRules(SYNTHESIS_LAYERS, SYNTHESIS, 'synthesis', 'SYNTHESIS_LAYERS'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(node_modules|/dist/|\\.d\\.ts$)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.mjs', '.js'],
      conditionNames: ['import', 'require', 'node', 'default'],
      exportsFields: ['exports'],
    },
  },
};

// For scripts/structure.mjs; not a dependency-cruiser option (its schema allows no other key).
Object.defineProperty(module.exports, 'SERVER_LAYERS', { value: SERVER_LAYERS, enumerable: false });
Object.defineProperty(module.exports, 'SPEECH_LAYERS', { value: SPEECH_LAYERS, enumerable: false });
Object.defineProperty(module.exports, 'SYNTHESIS_LAYERS', { value: SYNTHESIS_LAYERS, enumerable: false });
