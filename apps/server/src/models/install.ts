/**
 * `npm run models -- add | remove | verify | list`: installs catalogue models into MODELS_DIR atomically
 * (downloaded beside it, unpacked into a hidden temporary folder, its layout checked by the same
 * discovery the server runs, then renamed into place), so the server's poll of MODELS_DIR sees a
 * model whole or not at all.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MODEL_RECORD_FILE, discoverModels, readModelRecord, type ModelRecord } from '@polyvox/speech';
import { downloadUrl, formatBytes, type Catalogue, type CatalogueModel } from './catalogue.js';
import { InstallError, download, sha256File, type Downloaded, type Progress } from './download.js';
import { assertLinksInside, unpackTarBz2 } from './unpack.js';

export interface ModelsIo {
  out: (line: string) => void;
  err: (line: string) => void;
  progress: Progress;
}

export interface ModelsContext {
  modelsDir: string;
  catalogue: Catalogue;
  mirror?: string;
  io: ModelsIo;
}

/** Where downloads wait (and resume from) until they are installed. */
export const DOWNLOADS_DIR = '.downloads';

export function describeLicence(m: CatalogueModel): string {
  const l = m.licence;
  return `${l.name}: ${l.commercial ? 'commercial use allowed' : 'NOT for commercial use'}${l.url ? ` (${l.url})` : ''}${l.note ? `; ${l.note}` : ''}`;
}

function lookup(ctx: ModelsContext, name: string): CatalogueModel {
  const m = ctx.catalogue.models.get(name);
  if (!m)
    throw new InstallError(`${name} is not in the catalogue (npm run models -- list shows it)`, 'not_in_catalogue', { name });
  return m;
}

/** Every regular file under `dir` with its SHA-256, `/`-separated paths. */
async function digests(dir: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, await digests(dir, r));
    else if (e.isFile() && r !== MODEL_RECORD_FILE) out[r] = await sha256File(path.join(dir, r));
  }
  return out;
}

/** Discovery's verdict on a folder: undefined when it finds a model there, else the problem. */
function layoutProblem(parent: string, folder: string): string | undefined {
  const cache = path.join(parent, `.layout-cache-${randomBytes(4).toString('hex')}`);
  try {
    const scan = discoverModels(parent, cache);
    const problem = scan.problems.find((p) => p.folder === folder);
    if (problem) return problem.message;
    if (!scan.models.some((m) => m.source === folder)) return 'no model found in it';
    return undefined;
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

export async function addModel(ctx: ModelsContext, name: string): Promise<void> {
  const m = lookup(ctx, name);
  const target = path.join(ctx.modelsDir, name);
  if (existsSync(target))
    throw new InstallError(`${name} is already installed in ${target} (remove it first)`, 'already_installed', { name });
  const size = m.downloads.reduce((n, d) => n + d.bytes, 0);
  const approx = m.downloads.some((d) => d.approximate);
  ctx.io.out(
    `${name}: ${m.family}, ${m.languages.join(', ')}, ${m.speakers || 'cloning, no fixed'} voices, ${approx ? 'about ' : ''}${formatBytes(size)}`,
  );
  ctx.io.out(`Licence: ${describeLicence(m)}`);
  mkdirSync(path.join(ctx.modelsDir, DOWNLOADS_DIR), { recursive: true });
  const parts = m.downloads.map((d) => path.join(ctx.modelsDir, DOWNLOADS_DIR, `${name}--${path.posix.basename(d.path)}.part`));
  const fetched: Downloaded[] = [];
  for (const [i, d] of m.downloads.entries()) {
    fetched.push(await download(downloadUrl(ctx.catalogue, d, ctx.mirror), parts[i]!, d, ctx.io.progress));
  }
  // A hidden folder (discovery skips names starting with '.') on the same file system: renamed into place at the end.
  const tmp = path.join(ctx.modelsDir, `.install-${name}-${randomBytes(4).toString('hex')}`);
  try {
    const staging = path.join(tmp, name);
    const archives = m.downloads.flatMap((d, i) => (d.file ? [] : [i]));
    if (archives.length > 1) throw new InstallError(`${name}: the catalogue lists more than one archive`);
    if (archives.length) {
      const unpacked = path.join(tmp, '.unpacked');
      await unpackTarBz2(parts[archives[0]!]!, unpacked);
      // sherpa-onnx's archives hold one folder named after the release: the model is inside it.
      const top = readdirSync(unpacked, { withFileTypes: true });
      const root = top.length === 1 && top[0]!.isDirectory() ? path.join(unpacked, top[0]!.name) : unpacked;
      assertLinksInside(root);
      renameSync(root, staging);
    } else mkdirSync(staging, { recursive: true });
    for (const [i, d] of m.downloads.entries()) {
      if (!d.file) continue;
      if (existsSync(path.join(staging, d.file))) throw new InstallError(`${name}: ${d.file} is already in the archive`);
      renameSync(parts[i]!, path.join(staging, d.file));
    }
    const problem = layoutProblem(tmp, name);
    if (problem)
      throw new InstallError(`${name} is not a model the server can run (${problem}): nothing was installed`, 'not_runnable', {
        name,
      });
    const record: ModelRecord = {
      name,
      licence: { name: m.licence.name, commercial: m.licence.commercial, ...(m.licence.url ? { url: m.licence.url } : {}) },
      urls: fetched.map((f) => f.url),
      downloads: fetched,
      files: await digests(staging),
      installedAt: new Date().toISOString(),
    };
    writeFileSync(path.join(staging, MODEL_RECORD_FILE), JSON.stringify(record, null, 2) + '\n');
    renameSync(staging, target);
  } catch (e) {
    // Downloaded whole but not installable: nothing to resume, the next run fetches anew.
    for (const p of parts) rmSync(p, { force: true });
    throw e;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const p of parts) rmSync(p, { force: true });
  for (const f of fetched) ctx.io.out(`fetched ${f.url}: ${f.bytes} bytes, SHA-256 ${f.sha256}`);
  ctx.io.out(`${name} installed in ${target}; a running server picks it up within seconds (it polls MODELS_DIR).`);
}

export function removeModel(ctx: ModelsContext, name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new InstallError(`${name} is not a model name`);
  const target = path.join(ctx.modelsDir, name);
  if (!existsSync(target) || !statSync(target).isDirectory())
    throw new InstallError(`${name} is not installed in ${ctx.modelsDir}`);
  // Out of sight at once (a rename), then deleted: the server never sees half a model.
  const gone = path.join(ctx.modelsDir, `.removing-${name}-${randomBytes(4).toString('hex')}`);
  renameSync(target, gone);
  rmSync(gone, { recursive: true, force: true });
  const downloads = path.join(ctx.modelsDir, DOWNLOADS_DIR);
  if (existsSync(downloads))
    for (const f of readdirSync(downloads)) if (f.startsWith(`${name}--`)) rmSync(path.join(downloads, f), { force: true });
  ctx.io.out(`${name} removed; a running server drops its voices within seconds.`);
}

/** Re-checks every installed model's recorded digests and its layout; returns how many failed. */
export async function verifyModels(ctx: ModelsContext): Promise<number> {
  let failed = 0;
  let checked = 0;
  const folders = existsSync(ctx.modelsDir)
    ? readdirSync(ctx.modelsDir, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    : [];
  for (const f of folders) {
    const dir = path.join(ctx.modelsDir, f.name);
    const record = readModelRecord(dir);
    if (!record) continue;
    checked++;
    const wrong: string[] = [];
    for (const [rel, sha] of Object.entries(record.files)) {
      const file = path.join(dir, ...rel.split('/'));
      if (!existsSync(file)) wrong.push(`${rel} is missing`);
      else if ((await sha256File(file)) !== sha) wrong.push(`${rel} has changed (SHA-256 differs from the one recorded)`);
    }
    const problem = layoutProblem(ctx.modelsDir, f.name);
    if (problem) wrong.push(problem);
    if (wrong.length) {
      failed++;
      for (const w of wrong) ctx.io.err(`${f.name}: ${w}`);
    } else ctx.io.out(`${f.name}: ok (${Object.keys(record.files).length} files, licence ${record.licence.name})`);
  }
  if (!checked) ctx.io.out(`No model installed by npm run models in ${ctx.modelsDir}.`);
  return failed;
}

/** A licence's name, marked when it does not allow commercial use (once: some names already say so). */
function licenceLabel(l: { name: string; commercial: boolean }): string {
  return l.commercial || /non-commercial/i.test(l.name) ? l.name : `${l.name} (non-commercial)`;
}

export function listCatalogue(ctx: ModelsContext): void {
  for (const m of ctx.catalogue.models.values()) {
    const installed = existsSync(path.join(ctx.modelsDir, m.name));
    const size = m.downloads.reduce((n, d) => n + d.bytes, 0);
    const approx = m.downloads.some((d) => d.approximate) ? '~' : '';
    ctx.io.out(
      `${installed ? '*' : ' '} ${m.name}  ${m.family}  ${m.languages.join(',')}  ${m.speakers ? `${m.speakers} voices` : 'cloning'}  ${approx}${formatBytes(size)}  ${licenceLabel(m.licence)}`,
    );
  }
  ctx.io.out('* installed. ~ size approximate. npm run models -- add NAME installs one.');
}
