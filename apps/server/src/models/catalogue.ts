/**
 * The catalogue of text-to-speech models `npm run models -- add NAME` installs
 * (apps/server/content/models-catalogue.json): sherpa-onnx's releases (an archive, and for Matcha and
 * ZipVoice the vocoder beside it) and Piper voices as Piper distributes them (NAME.onnx with its JSON).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { serverRoot } from '../platform/paths.js';
import type { ModelLicence } from '@polyvox/speech';

export interface CatalogueDownload {
  /** A key of the catalogue's `bases`: whose release server it comes from. */
  base: string;
  /** Its path under the base (a mirror keeps the same paths). */
  path: string;
  bytes: number;
  /** The size was read from a listing or docs, not from the file itself: accepted within a factor of APPROXIMATE_FACTOR. */
  approximate?: boolean;
  sha256?: string;
  /** A single file put into the model's folder under this name; absent: a .tar.bz2 archive unpacked there. */
  file?: string;
}

export interface CatalogueModel {
  name: string;
  family: string;
  languages: string[];
  /** Its voices (0: a cloning model with no fixed voices). */
  speakers: number;
  sampleRate: number;
  downloads: CatalogueDownload[];
  licence: ModelLicence & { note?: string };
  /** Where its facts were read. */
  source: string;
}

export interface Catalogue {
  bases: Map<string, string>;
  models: Map<string, CatalogueModel>;
}

export const CATALOGUE_FILE = path.join(serverRoot, 'content', 'models-catalogue.json');

/**
 * How far an approximate size may be from what arrives: half to twice it. Enough to refuse an error page or a
 * truncated file served in a model's place, loose enough for sizes read from listings and docs.
 */
export const APPROXIMATE_FACTOR = 2;

export class CatalogueError extends Error {}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function parseCatalogue(raw: unknown): Catalogue {
  const o = raw as { bases?: Record<string, unknown>; models?: unknown[] };
  if (!o || typeof o !== 'object' || !o.bases || !Array.isArray(o.models)) throw new CatalogueError('expected {bases, models}');
  const bases = new Map(Object.entries(o.bases).map(([k, v]) => [k, String(v)]));
  const models = new Map<string, CatalogueModel>();
  for (const m of o.models as CatalogueModel[]) {
    if (!m || typeof m.name !== 'string' || !SAFE_NAME.test(m.name))
      throw new CatalogueError(`bad model name ${String(m?.name)}`);
    if (models.has(m.name)) throw new CatalogueError(`${m.name} is listed twice`);
    if (!Array.isArray(m.downloads) || !m.downloads.length) throw new CatalogueError(`${m.name} has no downloads`);
    for (const d of m.downloads) {
      if (!bases.has(d.base)) throw new CatalogueError(`${m.name}: unknown base ${d.base}`);
      if (!Number.isSafeInteger(d.bytes) || d.bytes <= 0) throw new CatalogueError(`${m.name}: bad size for ${d.path}`);
      if (d.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(d.sha256))
        throw new CatalogueError(`${m.name}: bad sha256 for ${d.path}`);
      if (d.file !== undefined && !SAFE_NAME.test(d.file)) throw new CatalogueError(`${m.name}: bad file name ${d.file}`);
      if (/(^|\/)\.\.(\/|$)|^\//.test(d.path)) throw new CatalogueError(`${m.name}: bad path ${d.path}`);
    }
    if (!m.licence || typeof m.licence.name !== 'string' || typeof m.licence.commercial !== 'boolean')
      throw new CatalogueError(`${m.name} has no licence`);
    models.set(m.name, m);
  }
  return { bases, models };
}

export function loadCatalogue(file: string | URL = CATALOGUE_FILE): Catalogue {
  return parseCatalogue(JSON.parse(readFileSync(file, 'utf8')));
}

/** Where a download is fetched from: the mirror when one is set, else its base. */
export function downloadUrl(catalogue: Catalogue, d: CatalogueDownload, mirror?: string): string {
  const base = mirror ? (mirror.endsWith('/') ? mirror : `${mirror}/`) : catalogue.bases.get(d.base)!;
  return new URL(d.path, base).href;
}

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}
