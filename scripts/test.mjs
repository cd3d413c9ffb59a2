#!/usr/bin/env node
// Runs every check and test tier in order and ends with one summary line: "N passed, M failed".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const artifacts = path.join(root, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const only = process.argv.slice(2);

const bin = (name) => path.join(root, 'node_modules/.bin', name);
const steps = [
  { name: 'lint', cmd: bin('eslint'), args: ['.'] },
  { name: 'format', cmd: bin('prettier'), args: ['--check', '.'] },
  { name: 'typecheck', cmd: 'npm', args: ['run', '--silent', 'typecheck'] },
  { name: 'unit', cmd: bin('vitest'), args: vitestArgs('unit'), report: path.join(artifacts, 'vitest-unit.json') },
  {
    name: 'integration',
    cmd: bin('vitest'),
    args: vitestArgs('integration'),
    report: path.join(artifacts, 'vitest-integration.json'),
  },
  { name: 'browser', cmd: process.execPath, args: [path.join(root, 'scripts/browser-tests.mjs')], browser: true },
];

function vitestArgs(project) {
  return [
    'run',
    '--project',
    project,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=artifacts/vitest-${project}.json`,
  ];
}

let passed = 0;
let failed = 0;
const table = [];
for (const step of steps) {
  if (only.length && !only.includes(step.name)) continue;
  const started = Date.now();
  console.log(`\n=== ${step.name} ===`);
  const res = spawnSync(step.cmd, step.args, {
    cwd: root,
    stdio: step.browser ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let counts = { passed: res.status === 0 ? 1 : 0, failed: res.status === 0 ? 0 : 1 };
  if (step.report && fs.existsSync(step.report)) {
    const json = JSON.parse(fs.readFileSync(step.report, 'utf8'));
    counts = { passed: json.numPassedTests, failed: json.numFailedTests + (res.status === 0 ? 0 : json.numFailedTests ? 0 : 1) };
  }
  if (step.browser) {
    process.stdout.write(res.stdout ?? '');
    const m = /^(\d+) passed, (\d+) failed$/m.exec(res.stdout ?? '');
    if (m) counts = { passed: Number(m[1]), failed: Number(m[2]) + (res.status === 0 || Number(m[2]) ? 0 : 1) };
  }
  passed += counts.passed;
  failed += counts.failed;
  table.push({
    step: step.name,
    status: res.status === 0 ? 'ok' : 'FAILED',
    passed: counts.passed,
    failed: counts.failed,
    seconds,
  });
}

console.log('\n=== summary ===');
console.table(table);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
