/* global module */
// The import rules `npm run lint` checks (dependency-cruiser, type-only imports included): no cycles anywhere;
// packages never import the apps; the console and the server never import each other; inside apps/server/src,
// each folder may import only the folders below it in SERVER_LAYERS (the list runs bottom to top).
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
  ['design', 'engines', 'dialogue'],
  ['account-admin', 'overview'],
  ['reports'],
  ['composition'],
  ['roles'],
  ['admin', '(root)'],
];

const SERVER = '^apps/server/src/';
const folderPattern = (name) => (name === '(root)' ? `${SERVER}[^/]+$` : `${SERVER}${name}/`);
const anyOf = (names) => `(${names.map(folderPattern).join('|')})`;

function layerRules() {
  const rules = [];
  SERVER_LAYERS.forEach((group, i) => {
    const above = SERVER_LAYERS.slice(i + 1).flat();
    for (const name of group) {
      const peers = group.filter((other) => other !== name);
      const forbidden = [...above, ...peers];
      if (forbidden.length === 0) continue;
      rules.push({
        name: `server-layer-${name === '(root)' ? 'root' : name}`,
        comment: `apps/server/src/${name === '(root)' ? '' : `${name}/`} imports only the folders below it (.dependency-cruiser.cjs, SERVER_LAYERS)`,
        severity: 'error',
        from: { path: folderPattern(name) },
        to: { path: anyOf(forbidden) },
      });
    }
  });
  return rules;
}

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
    ...layerRules(),
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
