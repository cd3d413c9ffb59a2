#!/usr/bin/env node
/**
 * What held the main thread in the long blocks of a CPU profile (`BENCH_PROBE_PROFILE`'s window-*.cpuprofile files):
 * each run of busy samples (anything but `(idle)`, gaps under 1 ms closed) longer than the threshold, with the
 * functions its samples stood in (self time) and the outermost frames they came from.
 *
 *   node bench/profile-blocks.mjs <file.cpuprofile>… [--over 10] [--top 8]
 */
import fs from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  return v;
};
const overMs = opt('--over', 10);
const top = opt('--top', 8);

const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(apps|packages|node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};

const all = [];
for (const file of args) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // The outermost frames under the root that are not Node's own plumbing: where a block's work entered.
  const entry = (id) => {
    const chain = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) chain.push(byId.get(cur));
    chain.reverse();
    const ours = chain.find((n) => /\/(apps|packages)\//.test(n.callFrame.url));
    return ours ? label(ours) : label(chain[Math.min(2, chain.length - 1)] ?? chain[0]);
  };
  let t = p.startTime;
  const times = p.timeDeltas.map((d) => (t += d));
  let block = null;
  const close = () => {
    if (block && (block.end - block.start) / 1000 > overMs) all.push({ file, ...block });
    block = null;
  };
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]);
    const idle = n.callFrame.functionName === '(idle)';
    const at = times[i];
    if (idle) {
      if (block && at - block.end > 1000) close();
      continue;
    }
    if (!block || at - block.end > 1000) {
      close();
      block = { start: at, end: at, self: new Map(), entries: new Map(), samples: 0 };
    }
    block.end = at;
    block.samples++;
    const s = label(n);
    block.self.set(s, (block.self.get(s) ?? 0) + 1);
    const e = entry(n.id);
    block.entries.set(e, (block.entries.get(e) ?? 0) + 1);
  }
  close();
}

const pct = (m, total) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `    ${((100 * v) / total).toFixed(0).padStart(3)} %  ${k}`)
    .join('\n');

const summary = { self: new Map(), entries: new Map(), samples: 0 };
for (const b of all) {
  console.log(`\n${((b.end - b.start) / 1000).toFixed(1)} ms, ${b.samples} samples (${b.file.split('/').pop()})`);
  console.log('  self:\n' + pct(b.self, b.samples));
  console.log('  entered from:\n' + pct(b.entries, b.samples));
  for (const [k, v] of b.self) summary.self.set(k, (summary.self.get(k) ?? 0) + v);
  for (const [k, v] of b.entries) summary.entries.set(k, (summary.entries.get(k) ?? 0) + v);
  summary.samples += b.samples;
}
console.log(`\n${all.length} blocks over ${overMs} ms; over all of them:`);
console.log('  self:\n' + pct(summary.self, summary.samples));
console.log('  entered from:\n' + pct(summary.entries, summary.samples));
