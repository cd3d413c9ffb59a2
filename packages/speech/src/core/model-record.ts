/**
 * What `npm run models -- add` leaves in a model's folder beside its files: where the model came from,
 * its licence, and the SHA-256 of every file it unpacked. Discovery reads the licence from it (a model
 * whose licence forbids commercial use is marked in the library); `verify` re-checks the digests.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const MODEL_RECORD_FILE = 'polyvox-model.json';

export interface ModelLicence {
  /** SPDX id or the licence's own name (`Apache-2.0`, `CC-BY-NC-SA-4.0`, `Blizzard 2011 (research)`). */
  name: string;
  /** Whether the licence allows commercial use. */
  commercial: boolean;
  /** Where the licence is stated. */
  url?: string;
}

export interface ModelRecord {
  /** The catalogue name it was installed under. */
  name: string;
  licence: ModelLicence;
  /** The URLs it was fetched from. */
  urls: string[];
  /** SHA-256 and size of each download, as fetched. */
  downloads: { url: string; bytes: number; sha256: string }[];
  /** SHA-256 of each installed file, relative to the model's folder (`/`-separated). */
  files: Record<string, string>;
  installedAt: string;
}

/** The record of an installed model's folder, or undefined when it has none or it does not parse. */
export function readModelRecord(dir: string): ModelRecord | undefined {
  try {
    const raw = JSON.parse(readFileSync(path.join(dir, MODEL_RECORD_FILE), 'utf8')) as Partial<ModelRecord>;
    if (!raw || typeof raw !== 'object' || !raw.licence || typeof raw.licence.name !== 'string') return undefined;
    return {
      name: String(raw.name ?? path.basename(dir)),
      licence: {
        name: raw.licence.name,
        commercial: raw.licence.commercial === true,
        ...(typeof raw.licence.url === 'string' ? { url: raw.licence.url } : {}),
      },
      urls: Array.isArray(raw.urls) ? raw.urls.map(String) : [],
      downloads: Array.isArray(raw.downloads) ? raw.downloads : [],
      files: raw.files && typeof raw.files === 'object' ? raw.files : {},
      installedAt: String(raw.installedAt ?? ''),
    };
  } catch {
    return undefined;
  }
}
