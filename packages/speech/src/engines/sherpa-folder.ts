/**
 * A model folder as discovery reads it: its entries, a file it must have (a missing one is a `Missing` problem
 * naming it, checked before native code sees the path), its phonemizer data, and the entry it becomes.
 */
import { existsSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { SherpaFileKey, SherpaModelEntry, SherpaModelType, SherpaSpeaker } from './sherpa-manifest.ts';

/** The files sherpa-onnx's eSpeak frontend opens in a data dir (its config checks). */
export const ESPEAK_DATA_FILES = ['phontab', 'phonindex', 'phondata', 'intonations'];

/** Model files: the plain export first, then quantized ones (model.onnx before model.int8.onnx). */
export function preferPlain(a: string, b: string): number {
  const q = (n: string): number => (/(int8|uint8|fp16|q8|quant)/i.test(n) ? 1 : 0);
  return q(a) - q(b) || a.length - b.length || a.localeCompare(b);
}

export const idOf = (name: string): string =>
  name
    .replace(/\.onnx$/, '')
    .replace(/[^a-z0-9._-]+/gi, '-')
    .replace(/^[^a-z0-9]+/i, '');

/** A file the layout needs that is absent or unreadable: the folder is skipped with this message. */
export class Missing extends Error {}
export interface Folder {
  dir: string;
  /** Relative to MODELS_DIR, for reports. */
  rel: string;
  entries: Dirent[];
  has(name: string): boolean;
  file(name: string): string;
}

export function folderOf(dir: string, modelsDir: string): Folder {
  const entries = readdirSync(dir, { withFileTypes: true });
  const names = new Set(entries.map((e) => e.name));
  return {
    dir,
    rel: path.relative(modelsDir, dir) || '.',
    entries,
    has: (name) => names.has(name),
    file: (name) => {
      if (!names.has(name)) throw new Missing(`${name} is missing`);
      return path.join(dir, name);
    },
  };
}

/** The folder's own eSpeak NG data, when it has one; a partial copy names the file it lacks. */
function espeakData(f: Folder): string | undefined {
  if (!f.has('espeak-ng-data')) return undefined;
  const dir = path.join(f.dir, 'espeak-ng-data');
  for (const x of ESPEAK_DATA_FILES) if (!existsSync(path.join(dir, x))) throw new Missing(`espeak-ng-data/${x} is missing`);
  return dir;
}

/** Its phonemizer data: own eSpeak NG data, lexicons, jieba dictionary, text-normalization rules. */
export function phonemizerFiles(f: Folder): Partial<Record<SherpaFileKey, string>> {
  const files: Partial<Record<SherpaFileKey, string>> = {};
  const dataDir = espeakData(f);
  if (dataDir) files.dataDir = dataDir;
  const names = f.entries.filter((e) => e.isFile()).map((e) => e.name);
  const lexicons = names
    .filter((n) => /^lexicon.*\.txt$/.test(n))
    .sort((a, b) => (a === 'lexicon.txt' ? -1 : b === 'lexicon.txt' ? 1 : a.localeCompare(b)));
  if (lexicons.length) files.lexicon = lexicons.map((n) => path.join(f.dir, n)).join(',');
  if (f.entries.some((e) => e.name === 'dict' && e.isDirectory())) files.dictDir = path.join(f.dir, 'dict');
  // sherpa-onnx's own examples give the phone rules first, then dates and numbers.
  const order = (n: string): number => (n.startsWith('phone') ? 0 : n.startsWith('date') ? 1 : n.startsWith('number') ? 2 : 3);
  const fsts = names.filter((n) => n.endsWith('.fst')).sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  if (fsts.length) files.ruleFsts = fsts.map((n) => path.join(f.dir, n)).join(',');
  if (f.has('rule.far')) files.ruleFars = path.join(f.dir, 'rule.far');
  return files;
}

export interface Onnx {
  name: string;
  file: string;
  meta: Record<string, string>;
}

export function numberOf(meta: Record<string, string>, key: string): number | undefined {
  const v = Number(meta[key]);
  return meta[key] !== undefined && Number.isFinite(v) ? v : undefined;
}

export function entry(
  source: string,
  id: string,
  type: SherpaModelType,
  name: string,
  languages: string[],
  files: Partial<Record<SherpaFileKey, string>>,
  speakers: SherpaSpeaker[],
  sampleRate: number | undefined,
  description: string,
): SherpaModelEntry {
  return {
    id,
    source,
    name,
    type,
    languages: languages.length ? languages : ['en'],
    description,
    files,
    speakers,
    ...(sampleRate ? { sampleRate } : {}),
  };
}
