#!/usr/bin/env node
// The server's and the speech package's structure in figures, from its imports (type-only ones included), with the layer lists of
// .dependency-cruiser.cjs: folders, arrows between folders, arrows that run upward, import cycles, the largest files,
// and the rule violations `npm run lint` fails on. `node scripts/structure.mjs --json` prints the figures as JSON.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const require = createRequire(import.meta.url);
const config = require(path.join(root, '.dependency-cruiser.cjs'));
const SRC = 'apps/server/src/';
const SPEECH_SRC = 'packages/speech/src/';

const result = await cruise(['apps', 'packages'], {
  ...config.options,
  validate: true,
  ruleSet: { forbidden: config.forbidden },
});
const { modules, summary } = result.output;

/** The figures of one layered source folder (`src`, ending in '/') against its layer list. */
function figuresOf(src, layers) {
  const ownModules = modules.filter((m) => m.source.startsWith(src));
  /** The folder a file sits in, below src ('(root)' for src itself); `top` keeps the first level only. */
  const folderOf = (file, top = false) => {
    const parts = file.slice(src.length).split('/');
    parts.pop();
    if (parts.length === 0) return '(root)';
    return top ? parts[0] : parts.join('/');
  };
  const rank = new Map();
  layers.forEach((group, i) => group.forEach((name) => rank.set(name, i)));
  const arrows = new Map();
  for (const m of ownModules) {
    for (const d of m.dependencies) {
      if (!d.resolved.startsWith(src)) continue;
      const from = folderOf(m.source);
      const to = folderOf(d.resolved);
      if (from !== to) arrows.set(`${from} -> ${to}`, { from: folderOf(m.source, true), to: folderOf(d.resolved, true) });
    }
  }
  const upward = [...arrows].filter(([, { from, to }]) => {
    const a = rank.get(from);
    const b = rank.get(to);
    // A folder missing from the list counts as upward both ways: the list must name every folder.
    return a === undefined || b === undefined || (from !== to && a <= b);
  });
  const largest = ownModules
    .map((m) => ({ file: m.source.slice(src.length), lines: lines(m.source) }))
    .sort((a, b) => b.lines - a.lines)
    .slice(0, 8);
  return {
    files: ownModules.length,
    lines: ownModules.reduce((sum, m) => sum + lines(m.source), 0),
    folders: new Set(ownModules.map((m) => folderOf(m.source))).size,
    folder_arrows: arrows.size,
    upward_arrows: upward.map(([name]) => name),
    largest,
  };
}

const cycles = new Set();
for (const m of modules) {
  for (const d of m.dependencies) {
    if (!d.circular) continue;
    // One cycle is seen from each of its files: written from its first file by name, it is counted once.
    const names = d.cycle.map((c) => c.name ?? c);
    const start = names.indexOf([...names].sort()[0]);
    cycles.add([...names.slice(start), ...names.slice(0, start)].join(' -> '));
  }
}
const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').length;
const server = figuresOf(SRC, config.SERVER_LAYERS);
const speech = figuresOf(SPEECH_SRC, config.SPEECH_LAYERS);
const figures = {
  server_files: server.files,
  server_lines: server.lines,
  folders: server.folders,
  folder_arrows: server.folder_arrows,
  upward_arrows: server.upward_arrows,
  cycles: [...cycles],
  largest: server.largest,
  speech,
  violations: summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`),
};

if (process.argv.includes('--json')) console.log(JSON.stringify(figures, null, 2));
else {
  console.log(`apps/server/src: ${figures.server_files} files, ${figures.server_lines} lines, ${figures.folders} folders`);
  console.log(`arrows between folders: ${figures.folder_arrows}; upward: ${figures.upward_arrows.length}`);
  for (const a of figures.upward_arrows) console.log(`  upward ${a}`);
  console.log(`import cycles (every package and app): ${figures.cycles.length}`);
  for (const c of figures.cycles) console.log(`  cycle ${c}`);
  console.log('largest files:');
  console.table(figures.largest);
  console.log(`packages/speech/src: ${speech.files} files, ${speech.lines} lines, ${speech.folders} folders`);
  console.log(`arrows between folders: ${speech.folder_arrows}; upward: ${speech.upward_arrows.length}`);
  for (const a of speech.upward_arrows) console.log(`  upward ${a}`);
  console.log('largest files:');
  console.table(speech.largest);
  console.log(`rule violations: ${figures.violations.length}`);
  for (const v of figures.violations) console.log(`  ${v}`);
}
