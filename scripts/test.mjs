#!/usr/bin/env node
// Runs every check and test tier in order and ends with one summary line: "N passed, M failed".
// TEST_NODE_VERSIONS=22,24 adds tiers on those Node versions (scripts/test-node-versions.mjs): by default the
// integration tier, which runs the whole server (worker threads, child processes, native addons, WebAssembly) where
// versions differ; TEST_NODE_PROJECTS=unit,integration adds the unit tier there (about 6 minutes a version); CI runs the
// integration tier only, its files shared among the versions (TEST_NODE_SHARDED=1).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CROSS_VERSION_FILES, parseVersions, runVitestStep, vitestCounts, vitestStep } from './test-node-versions.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const artifacts = path.join(root, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const only = process.argv.slice(2);

const bin = (name) => path.join(root, 'node_modules/.bin', name);
const steps = [
  { name: 'lint', cmd: bin('eslint'), args: ['.'] },
  // The import rules: no cycles, layers one way (.dependency-cruiser.cjs).
  { name: 'imports', cmd: bin('depcruise'), args: ['apps', 'packages', 'bench', '--config', '.dependency-cruiser.cjs'] },
  { name: 'format', cmd: bin('prettier'), args: ['--check', '.'] },
  // Generated code against its source: the watermark's committed WebAssembly is what its C builds to (clang, lld).
  { name: 'generated', cmd: process.execPath, args: [path.join(root, 'scripts/check-watermark-wasm.mjs')] },
  { name: 'typecheck', cmd: 'npm', args: ['run', '--silent', 'typecheck'] },
  { name: 'unit', cmd: bin('vitest'), args: vitestArgs('unit'), report: path.join(artifacts, 'vitest-unit.json') },
  {
    name: 'integration',
    cmd: bin('vitest'),
    args: vitestArgs('integration'),
    report: path.join(artifacts, 'vitest-integration.json'),
  },
  {
    name: 'browser',
    cmd: process.execPath,
    args: [path.join(root, 'scripts/browser-tests.mjs')],
    browserReport: path.join(artifacts, 'playwright-report.json'),
  },
  ...(process.env.TEST_NODE_VERSIONS ? otherNodeSteps(process.env.TEST_NODE_VERSIONS) : []),
];

// A bad TEST_NODE_VERSIONS is a failed step, so the summary still ends the output.
function otherNodeSteps(list) {
  try {
    const projects = (process.env.TEST_NODE_PROJECTS || 'integration').split(',').map((p) => p.trim());
    const unknown = projects.filter((p) => p !== 'unit' && p !== 'integration');
    if (unknown.length) throw new Error(`TEST_NODE_PROJECTS: unknown tier ${unknown.join(', ')} (unit, integration)`);
    // TEST_NODE_SHARDED=1 (as CI sets it) splits the files among the versions with vitest's --shard: each file runs
    // on one of them, so the other versions add one tier's time, not one per version.
    const pins = parseVersions(list);
    const shard = (i) => (process.env.TEST_NODE_SHARDED === '1' && pins.length > 1 ? [`--shard=${i + 1}/${pins.length}`] : []);
    // TEST_NODE_SUBSET=1 (as CI sets it) runs the integration files chosen to cover what differs between versions
    // (CROSS_VERSION_FILES), not all of them.
    const files = (project) => (process.env.TEST_NODE_SUBSET === '1' && project === 'integration' ? CROSS_VERSION_FILES : []);
    return pins.flatMap((pin, i) => projects.map((project) => vitestStep(pin, project, [...shard(i), ...files(project)])));
  } catch (err) {
    return [{ name: 'node versions', fail: err instanceof Error ? err.message : String(err) }];
  }
}

function vitestArgs(project) {
  return [
    'run',
    '--project',
    project,
    '--reporter=default',
    '--reporter=json',
    '--reporter=./scripts/vitest-errors-reporter.mjs',
    `--outputFile.json=artifacts/vitest-${project}.json`,
  ];
}

let passed = 0;
let failed = 0;
const table = [];
// What failed, repeated next to the summary: a CI log that keeps only its tail still names each failure.
const failures = [];
for (const step of steps) {
  if (only.length && !only.includes(step.name)) continue;
  const started = Date.now();
  console.log(`\n=== ${step.name} ===`);
  if (step.fail || step.prepare) {
    // Another Node version's tier: its setup (fetch, native build) failing counts as one failure.
    const { status, counts } = step.fail
      ? (console.error(step.fail), { status: 1, counts: { passed: 0, failed: 1 } })
      : runVitestStep(step);
    passed += counts.passed;
    failed += counts.failed;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    table.push({ step: step.name, status: status === 0 ? 'ok' : 'FAILED', ...counts, seconds });
    failures.push(...vitestFailures(step.name, step.report));
    continue;
  }
  // A report left by an earlier run must not be read as this one's.
  if (step.browserReport) fs.rmSync(step.browserReport, { force: true });
  const res = spawnSync(step.cmd, step.args, { cwd: root, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let counts = { passed: res.status === 0 ? 1 : 0, failed: res.status === 0 ? 0 : 1 };
  if (step.report) {
    counts = vitestCounts(step.report, res.status);
    failures.push(...vitestFailures(step.name, step.report));
  }
  if (step.browserReport) {
    const report = playwrightReport(step.name, step.browserReport);
    // A run that failed without naming a failed test (the server did not start, say) is one failure.
    if (report) counts = { passed: report.passed, failed: report.failed + (res.status === 0 || report.failed ? 0 : 1) };
    failures.push(...(report?.failures ?? []));
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

if (failures.length) console.log(`\n=== failures ===\n${failures.join('\n')}`);
console.log('\n=== summary ===');
console.table(table);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);

/** Each failed test of a vitest JSON report, with its file and the first line of its error. */
function vitestFailures(stepName, report) {
  if (!report || !fs.existsSync(report)) return [];
  try {
    const json = JSON.parse(fs.readFileSync(report, 'utf8'));
    const notes = errorNotes(report);
    const perFile = json.testResults.flatMap((file) => {
      const rel = path.relative(root, file.name);
      const failedTests = file.assertionResults
        .filter((t) => t.status === 'failed')
        .map((t) => `${stepName}: ${rel} > ${t.fullName}\n    ${firstLine(t.failureMessages?.[0])}`);
      // A file that failed before its tests ran (an import or a hook) has no failed test of its own: the errors
      // reporter's notes say why (a suite's hook, the file's own error).
      if (!failedTests.length && file.status === 'failed') {
        const why = notes.filter((n) => n.file === rel).map((n) => `${n.where ? `${n.where}: ` : ''}${describeError(n)}`);
        return [`${stepName}: ${rel}\n    ${why.join('\n    ') || firstLine(file.message)}`];
      }
      return failedTests;
    });
    const unhandled = notes
      .filter((n) => n.where === 'unhandled')
      .map((n) => `${stepName}: unhandled error\n    ${describeError(n)}`);
    return [...perFile, ...unhandled];
  } catch {
    return [];
  }
}

/** The notes of scripts/vitest-errors-reporter.mjs beside a JSON report: hooks, files and errors no test caught. */
function errorNotes(report) {
  try {
    return JSON.parse(fs.readFileSync(report.replace(/\.json$/, '.errors.json'), 'utf8'));
  } catch {
    return [];
  }
}

/** An error's first line and where in the project's code it was thrown (a hook's stack opens in vitest's runner). */
function describeError(note) {
  const frame = String(note.stack ?? '')
    .split('\n')
    .find((l) => l.includes(root) && !l.includes('node_modules'));
  return `${firstLine(note.message)}${frame ? ` (${path.relative(root, frame.trim().replace(/^at .*\(|^at |\)$/g, ''))})` : ''}`;
}

/**
 * Counts of a Playwright JSON report: a test passes when its last run passed (a hung test that passed when run again
 * counts as passed); one that failed or did not run counts as failed, named with the first line of its error.
 */
function playwrightReport(stepName, report) {
  if (!fs.existsSync(report)) return undefined;
  try {
    const json = JSON.parse(fs.readFileSync(report, 'utf8'));
    let passed = 0;
    let failed = 0;
    const failures = [];
    // Spec files are named from the config's folder (e2e/); the summary names them from the repository.
    const file = (name) => path.relative(root, path.resolve(json.config?.rootDir ?? root, name));
    const visit = (suite, titles) => {
      const here = suite.title && !suite.title.endsWith('.ts') ? [...titles, suite.title] : titles;
      for (const spec of suite.specs ?? []) {
        for (const t of spec.tests ?? []) {
          if (t.status === 'expected' || t.status === 'flaky') {
            passed++;
            continue;
          }
          failed++;
          const error = (t.results ?? []).flatMap((r) => r.errors ?? (r.error ? [r.error] : [])).find((e) => e?.message);
          const why = error ? firstLine(stripAnsi(error.message)) : 'did not run';
          failures.push(`${stepName}: ${file(spec.file)} > ${[...here, spec.title].join(' > ')}\n    ${why}`);
        }
      }
      for (const child of suite.suites ?? []) visit(child, here);
    };
    for (const suite of json.suites ?? []) visit(suite, []);
    for (const error of json.errors ?? []) {
      failed++;
      failures.push(`${stepName}: ${firstLine(stripAnsi(error.message))}`);
    }
    return { passed, failed, failures };
  } catch {
    return undefined;
  }
}

function stripAnsi(text) {
  // eslint-disable-next-line no-control-regex
  return String(text ?? '').replace(/\u001b\[[0-9;]*m/g, '');
}

/** The first line that says something (a file-level error's message may open with a blank line or colour codes). */
function firstLine(text) {
  const lines = stripAnsi(String(text ?? '')).split('\n');
  return (lines.find((l) => l.trim()) ?? '').trim().slice(0, 400);
}
