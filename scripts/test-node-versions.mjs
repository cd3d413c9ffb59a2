#!/usr/bin/env node
// The unit and integration tiers on the other supported Node versions (22 and 24 LTS), beside the development
// Node the install was made with (20.19+). Node itself comes from npm (the `node-linux-<arch>` platform packages
// carry bin/node and include/node), pinned below and cached outside the repository. better-sqlite3 is the one
// addon built against V8's own ABI: it is compiled once per version into the cache from a copy of the installed
// package, and scripts/native-shim.mjs sends its load there, so node_modules stays as npm left it for Node 20.
// Every other native part (sherpa-onnx-node, sharp, msgpackr-extract, rolldown, lightningcss, esbuild) is N-API
// or a separate binary and loads as shipped; `check` proves it on each version before the tests run.
//
//   node scripts/test-node-versions.mjs [--versions 22,24] [--project unit|integration] [test files…]
//
// scripts/test.mjs runs the same steps inside `npm test` when TEST_NODE_VERSIONS=22,24 is set (as .ci/run does),
// so one summary line counts every tier.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The integration files that CI runs on the other Node versions (TEST_NODE_SUBSET=1): one or two for each part of
 * the runtime the versions differ in, where a file exercises it end to end. Node 20 runs every file on both databases.
 */
export const CROSS_VERSION_FILES = [
  // The compiled server under plain node with its V8 flags: its worker threads and helper processes.
  'build.process',
  // Signals, child processes, clients that leave mid-request.
  'process',
  'crash.process',
  // Engines in worker threads, encoders, and a stream's teardown when its reader goes.
  'synthesis.happy',
  'synthesis.leave',
  // WebSocket sessions and their settlement.
  'realtime.happy',
  'realtime.billing',
  // C2PA and the watermark as WebAssembly.
  'provenance.happy',
  // ffmpeg children, zip and M4B streams.
  'studio.export',
  // A SIGKILL and the resumed job.
  'jobs.durable',
  // Payment signatures (RSA, AES-GCM), TOTP and WebAuthn.
  'economy.providers',
  'operators.factor',
  // The AWS SDK's streams, SMTP sockets, multipart bodies.
  'storage.s3',
  'mail.smtp',
  'uploads.limits',
  // The HTTP server's timeouts, keep-alive and headers.
  'hardening.keepalive',
  'hardening.security',
  // sherpa-onnx (N-API) models and voice design.
  'models.library',
  'design.happy',
  // The official SDKs over fetch; the OpenAPI document and reference.
  'keys.sdk',
  'platform',
  // The ledger's transactions on the version's SQLite driver.
  'credits.ledger',
].map((name) => `apps/server/test/integration/${name}.test.ts`);

/** The Node versions tested besides the development one; each tarball's sha512 as the registry lists it. */
export const PINNED = new Map([
  [
    '22',
    {
      version: '22.23.3',
      integrity: {
        x64: 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==',
      },
    },
  ],
  [
    '24',
    {
      version: '24.21.0',
      integrity: {
        x64: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
      },
    },
  ],
]);

export function cacheDir() {
  return process.env.NODE_VERSIONS_CACHE || path.join(os.homedir(), '.cache', 'polyvox', 'node-versions');
}

function run(cmd, args, options = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (res.error) throw new Error(`${cmd} ${args.join(' ')}: ${res.error.message}`);
  if (res.status !== 0) {
    const out = `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} exited ${res.status}\n${out}`);
  }
  return res.stdout ?? '';
}

/** Parses "22,24" into the pinned entries; an unknown major is an error naming it. */
export function parseVersions(list) {
  return String(list)
    .split(',')
    .map((s) => s.trim().replace(/^v/, ''))
    .filter(Boolean)
    .map((major) => {
      const pin = PINNED.get(major);
      if (!pin) throw new Error(`No pinned Node ${major}: choose from ${[...PINNED.keys()].join(', ')}`);
      return { major, ...pin };
    });
}

/** bin/node and include/node of one version, fetched from npm into the cache once. */
function ensureNode(pin, log) {
  if (process.platform !== 'linux') throw new Error(`Node ${pin.version} from npm: only Linux is set up`);
  const integrity = pin.integrity[process.arch];
  if (!integrity) throw new Error(`Node ${pin.version} from npm: no pinned integrity for ${process.arch}`);
  const home = path.join(cacheDir(), pin.version);
  const dir = path.join(home, 'node');
  const bin = path.join(dir, 'bin', 'node');
  if (fs.existsSync(bin) && run(bin, ['--version']).trim() === `v${pin.version}`) return { dir, bin };
  log(`fetching node-linux-${process.arch}@${pin.version} from npm`);
  fs.mkdirSync(home, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(home, 'fetch-'));
  try {
    const out = run('npm', [
      'pack',
      `node-linux-${process.arch}@${pin.version}`,
      '--pack-destination',
      tmp,
      '--json',
      '--silent',
    ]);
    const [packed] = JSON.parse(out);
    const tarball = path.join(tmp, packed.filename);
    const actual = `sha512-${crypto.createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
    if (actual !== integrity)
      throw new Error(`node-linux-${process.arch}@${pin.version}: integrity ${actual}, pinned ${integrity}`);
    run('tar', ['-xzf', tarball, '-C', tmp]);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(path.join(tmp, 'package'), dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (!fs.existsSync(path.join(dir, 'include', 'node', 'node.h'))) throw new Error(`${dir}: no include/node headers`);
  return { dir, bin };
}

/** npm's own node-gyp, which `npm install` uses for addons without a prebuilt binary. */
function nodeGyp() {
  const npmCli = fs.realpathSync(run('sh', ['-c', 'command -v npm']).trim());
  const gyp = path.join(path.dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!fs.existsSync(gyp)) throw new Error(`node-gyp not found beside npm (${gyp})`);
  return gyp;
}

/** better_sqlite3.node compiled for this version's ABI from a copy of the installed package, cached by both versions. */
function ensureSqlite(pin, node, log) {
  const pkgDir = path.join(root, 'node_modules', 'better-sqlite3');
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const out = path.join(cacheDir(), pin.version, `better-sqlite3-${pkg.version}`, 'better_sqlite3.node');
  if (fs.existsSync(out)) return out;
  log(`building better-sqlite3 ${pkg.version} for Node ${pin.version} (node-gyp, about 80 s)`);
  const src = fs.mkdtempSync(path.join(cacheDir(), pin.version, 'build-'));
  try {
    fs.cpSync(pkgDir, src, { recursive: true, filter: (f) => !f.startsWith(path.join(pkgDir, 'build')) });
    const jobs = String(Math.max(1, os.availableParallelism?.() ?? os.cpus().length));
    run(node.bin, [nodeGyp(), 'rebuild', '--release', `--nodedir=${node.dir}`, `--jobs=${jobs}`], {
      cwd: src,
      // Under `npm test`, npm hands its own configuration down as npm_config_* variables, and node-gyp takes an
      // npmrc's `nodedir` (a Debian npm sets /usr: Node 20's headers) over its --nodedir argument, so a build
      // for Node 24 compiled against Node 20's ABI. None of them reaches the build; its headers are named twice.
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k))),
        npm_config_nodedir: node.dir,
        PATH: `${path.join(node.dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      },
    });
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(path.join(src, 'build', 'Release', 'better_sqlite3.node'), `${out}.tmp`);
    fs.renameSync(`${out}.tmp`, out);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
  return out;
}

/** The environment a process of this version runs in: its node first on PATH, the addon redirect preloaded. */
export function runtimeEnv(runtime, base = process.env) {
  const shim = pathToFileURL(path.join(root, 'scripts', 'native-shim.mjs')).href;
  return {
    ...base,
    PATH: `${path.join(runtime.dir, 'bin')}${path.delimiter}${base.PATH ?? ''}`,
    NODE_OPTIONS: `${base.NODE_OPTIONS ?? ''} --import=${shim}`.trim(),
    POLYVOX_BETTER_SQLITE3_BINDING: runtime.sqlite,
  };
}

// Loads each native part the server and its tests use, as the tests will, one process each (so a failure names
// its part), and says which version they ran on.
const CHECKS = new Map([
  [
    'better-sqlite3',
    `const db = new (req('better-sqlite3'))(':memory:');
     if (db.prepare('select 41 + 1 as x').get().x !== 42) throw new Error('better-sqlite3 answered wrong');
     db.close();`,
  ],
  ['sherpa-onnx-node', `if (typeof req('sherpa-onnx-node').OfflineTts !== 'function') throw new Error('no OfflineTts');`],
  ['sharp', `if (!req('sharp').versions?.vips) throw new Error('sharp did not load libvips');`],
  [
    'msgpackr-extract',
    `const { Packr, isNativeAccelerationEnabled } = req(req.resolve('msgpackr', { paths: [req.resolve('bullmq')] }));
     if (!isNativeAccelerationEnabled) throw new Error('msgpackr-extract did not load');
     if (new Packr().unpack(new Packr().pack({ a: [1, 'b'] })).a[1] !== 'b') throw new Error('msgpackr round trip');`,
  ],
  [
    'esbuild',
    `if (!req('esbuild').transformSync('let a: number = 1', { loader: 'ts' }).code.includes('let a = 1')) throw new Error('esbuild');`,
  ],
]);

function checkNatives(runtime) {
  for (const [name, code] of CHECKS) {
    const script = `const req = require('node:module').createRequire(process.cwd() + '/apps/server/package.json');\n${code}`;
    try {
      run(runtime.bin, ['-e', script], { cwd: root, env: runtimeEnv(runtime) });
    } catch (err) {
      throw new Error(`${name} does not work on Node ${runtime.version}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return `native parts load on Node ${runtime.version}: ${[...CHECKS.keys()].join(', ')}`;
}

const prepared = new Map();
/** Fetches, builds and checks one version once per process; throws with the reason when it cannot. */
export function prepareRuntime(pin, log = (m) => console.log(`[node ${pin.major}] ${m}`)) {
  if (prepared.has(pin.version)) return prepared.get(pin.version);
  fs.mkdirSync(cacheDir(), { recursive: true });
  const node = ensureNode(pin, log);
  const runtime = { ...pin, ...node, sqlite: ensureSqlite(pin, node, log) };
  log(checkNatives(runtime));
  prepared.set(pin.version, runtime);
  return runtime;
}

/** One vitest run of a project on one runtime; the JSON report lands in artifacts/vitest-<project>-node<major>.json. */
export function vitestStep(pin, project, files = []) {
  const name = `${project}@node${pin.major}`;
  const report = path.join(root, 'artifacts', `vitest-${project}-node${pin.major}.json`);
  return {
    name,
    report,
    prepare: () => prepareRuntime(pin),
    command: (runtime) => ({
      cmd: runtime.bin,
      args: [
        path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--project',
        project,
        '--reporter=default',
        '--reporter=json',
        '--reporter=./scripts/vitest-errors-reporter.mjs',
        `--outputFile.json=${path.relative(root, report)}`,
        ...files,
      ],
      // Integration on another Node version runs on SQLite alone (TEST_NODE_DIALECTS to change it): the SQLite driver
      // is the native part that differs by version (better-sqlite3 rebuilt, node:sqlite on 24); PostgreSQL's client is
      // plain JavaScript and is covered on both databases by the main tier. It halves the time these tiers add to CI.
      env: { ...runtimeEnv(runtime), TEST_DIALECTS: process.env.TEST_NODE_DIALECTS || 'sqlite' },
    }),
  };
}

/** Runs steps as scripts/test.mjs does and returns {passed, failed} per step; a setup failure is one failure. */
export function runVitestStep(step) {
  fs.rmSync(step.report, { force: true });
  let runtime;
  try {
    runtime = step.prepare();
  } catch (err) {
    console.error(`${step.name}: ${err instanceof Error ? err.message : String(err)}`);
    return { status: 1, counts: { passed: 0, failed: 1 } };
  }
  const { cmd, args, env } = step.command(runtime);
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  return { status: res.status ?? 1, counts: vitestCounts(step.report, res.status) };
}

/** Passed and failed tests from vitest's JSON report; a run that failed with no failed test counts one failure. */
export function vitestCounts(report, status) {
  const ok = status === 0;
  if (!fs.existsSync(report)) return { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  const json = JSON.parse(fs.readFileSync(report, 'utf8'));
  return { passed: json.numPassedTests, failed: json.numFailedTests + (ok || json.numFailedTests ? 0 : 1) };
}

function main(argv) {
  let versions = process.env.TEST_NODE_VERSIONS || [...PINNED.keys()].join(',');
  let projects = ['unit', 'integration'];
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--versions') versions = argv[++i] ?? '';
    else if (a === '--project') projects = [argv[++i] ?? ''];
    else files.push(a);
  }
  if (projects.some((p) => p !== 'unit' && p !== 'integration')) {
    console.error('--project is unit or integration');
    process.exit(2);
  }
  let pins;
  try {
    pins = parseVersions(versions);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  }
  let passed = 0;
  let failed = 0;
  const table = [];
  for (const pin of pins) {
    for (const project of projects) {
      const step = vitestStep(pin, project, files);
      const started = Date.now();
      console.log(`\n=== ${step.name} ===`);
      const { status, counts } = runVitestStep(step);
      passed += counts.passed;
      failed += counts.failed;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      table.push({ step: step.name, status: status === 0 ? 'ok' : 'FAILED', ...counts, seconds });
    }
  }
  console.log('\n=== summary ===');
  console.table(table);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
