/**
 * Finds the models in MODELS_DIR without a manifest: each subfolder holding an unpacked sherpa-onnx
 * text-to-speech release (vits-piper-*, vits-*, kokoro-*, kitten-*, matcha-* with its vocoder,
 * ZipVoice), and each Piper voice as Piper distributes it (NAME.onnx with NAME.onnx.json, loose or in
 * a folder). Type, languages, speakers and sample rate come from the files: the ONNX metadata that
 * sherpa-onnx's export scripts write, Piper's JSON config, Kokoro's voice names. `manifest.json`
 * overrides what is found (see scanModelsDir). The layouts are listed in docs/models.md; each is
 * recognised in sherpa-layouts.ts (its folder read through sherpa-folder.ts, Piper's config through
 * sherpa-piper.ts, names and languages through sherpa-names.ts); this file walks MODELS_DIR and reports.
 *
 * Every path is checked before native code sees one: sherpa-onnx exits the process on a
 * missing file. A folder that is incomplete or unreadable becomes a problem naming the file, and
 * is skipped.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readOnnxMetadata } from './onnx-metadata.ts';
import { MODEL_RECORD_FILE, readModelRecord } from '../core/model-record.ts';
import { folderOf, idOf, Missing } from './sherpa-folder.ts';
import { analyseFolder, vitsEntry } from './sherpa-layouts.ts';
import { ManifestError, parseManifest, type SherpaModelEntry } from './sherpa-manifest.ts';

export interface ModelProblem {
  /** The folder or file, relative to MODELS_DIR. */
  folder: string;
  message: string;
}

export interface ModelScan {
  models: SherpaModelEntry[];
  problems: ModelProblem[];
}

/** The models found in MODELS_DIR's subfolders and its loose Piper voices, and what was skipped and why. */
export function discoverModels(modelsDir: string, cacheDir = defaultCacheDir(modelsDir)): ModelScan {
  const models: SherpaModelEntry[] = [];
  const problems: ModelProblem[] = [];
  let top: Dirent[];
  try {
    top = readdirSync(modelsDir, { withFileTypes: true });
  } catch (e) {
    return { models, problems: [{ folder: '.', message: `MODELS_DIR is not readable (${(e as Error).message})` }] };
  }
  const seen = new Set<string>();
  const add = (m: SherpaModelEntry, rel: string): void => {
    if (seen.has(m.id)) problems.push({ folder: rel, message: `another model already has the id ${m.id}` });
    else {
      seen.add(m.id);
      models.push(m);
    }
  };
  for (const d of top.sort((a, b) => a.name.localeCompare(b.name))) {
    if (d.name.startsWith('.')) continue;
    const full = path.join(modelsDir, d.name);
    try {
      if (d.isDirectory()) {
        const f = folderOf(full, modelsDir);
        const model = analyseFolder(f, cacheDir);
        // Installed by `npm run models -- add`: its licence is in its record.
        const licence = f.has(MODEL_RECORD_FILE) ? readModelRecord(full)?.licence : undefined;
        add(licence ? { ...model, licence } : model, d.name);
      } else if (d.isFile() && d.name.endsWith('.onnx') && top.some((x) => x.name === `${d.name}.json`)) {
        // A loose Piper voice: NAME.onnx with NAME.onnx.json.
        const f = folderOf(modelsDir, modelsDir);
        const meta = readOnnxMetadata(full);
        add(vitsEntry(f, { name: d.name, file: full, meta }, idOf(d.name), cacheDir), d.name);
      }
    } catch (e) {
      if (e instanceof Missing) problems.push({ folder: d.name, message: e.message });
      else problems.push({ folder: d.name, message: `not readable (${(e as Error).message})` });
    }
  }
  return { models, problems };
}

function defaultCacheDir(modelsDir: string): string {
  return path.join(
    tmpdir(),
    `polyvox-piper-cache-${createHash('sha256').update(path.resolve(modelsDir)).digest('hex').slice(0, 12)}`,
  );
}

/**
 * The models of MODELS_DIR: those found in its folders, and manifest.json's entries over them. An entry
 * with the id of a found model overrides it, taking from it what it leaves out (type, files, languages,
 * speakers); a found model whose files an entry lists is replaced by that entry. A manifest that does
 * not parse is a problem, and the found models stay.
 */
export function scanModelsDir(modelsDir: string, cacheDir?: string): ModelScan {
  const found = discoverModels(modelsDir, cacheDir);
  const file = path.join(modelsDir, 'manifest.json');
  if (!existsSync(file)) return found;
  let listed: SherpaModelEntry[];
  try {
    listed = parseManifest(JSON.parse(readFileSync(file, 'utf8')), modelsDir, new Map(found.models.map((m) => [m.id, m])));
  } catch (e) {
    const message = e instanceof ManifestError ? e.message : `manifest.json is not readable (${(e as Error).message})`;
    return { models: found.models, problems: [...found.problems, { folder: 'manifest.json', message }] };
  }
  const ids = new Set(listed.map((m) => m.id));
  // The folder (or loose file) of MODELS_DIR each listed file lies in.
  const listedDirs = new Set(
    listed.flatMap((m) =>
      Object.values(m.files).flatMap((p) => p!.split(',').map((x) => path.relative(modelsDir, x).split(path.sep)[0]!)),
    ),
  );
  const kept = found.models.filter((m) => !ids.has(m.id) && !listedDirs.has(m.source!));
  // A found model whose folder the manifest covered no longer reports its problems either.
  const problems = found.problems.filter((p) => !ids.has(idOf(p.folder)) && !listedDirs.has(p.folder));
  return { models: [...listed, ...kept], problems };
}
