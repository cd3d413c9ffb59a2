/**
 * The manifest an operator writes next to the models in MODELS_DIR (`manifest.json`): which
 * sherpa-onnx models are there, their files, languages and speakers. Validated here, before any
 * native code sees a path: sherpa-onnx exits the whole process on a bad config.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Gender } from '../core/types.ts';
import type { ModelLicence } from '../core/model-record.ts';

export const SHERPA_MODEL_TYPES = ['vits', 'matcha', 'kokoro', 'kitten', 'zipvoice', 'pocket'] as const;
export type SherpaModelType = (typeof SHERPA_MODEL_TYPES)[number];

export interface SherpaSpeaker {
  /** Speaker id in the model (`sid`). */
  sid: number;
  name: string;
  gender: Gender;
  /** Measured mean F0, Hz; used for pitch arithmetic of mixes and designed voices. */
  pitchHz?: number;
  languages?: string[];
}

export interface SherpaModelEntry {
  id: string;
  name: string;
  type: SherpaModelType;
  languages: string[];
  description?: string;
  /** Paths relative to MODELS_DIR. Which ones a type needs: see REQUIRED_FILES. */
  files: Partial<Record<SherpaFileKey, string>>;
  speakers: SherpaSpeaker[];
  numThreads?: number;
  /** The model's output rate, Hz, where its files tell it. */
  sampleRate?: number;
  /** The folder (or loose file) of MODELS_DIR it was found in; absent for manifest entries. */
  source?: string;
  /** Extra generation settings (noiseScale, lengthScale, numSteps, …). */
  options?: Record<string, number>;
  /** Its licence, as `npm run models -- add` recorded it (model-record.ts). */
  licence?: ModelLicence;
  /** Its quality rank (QUALITY in quality.ts); absent: a neural model's. */
  quality?: number;
}

export type SherpaFileKey =
  | 'model'
  | 'tokens'
  | 'lexicon'
  | 'dataDir'
  | 'dictDir'
  | 'voices'
  | 'acousticModel'
  | 'vocoder'
  | 'encoder'
  | 'decoder'
  | 'lmFlow'
  | 'lmMain'
  | 'textConditioner'
  | 'vocabJson'
  | 'tokenScoresJson'
  | 'ruleFsts'
  | 'ruleFars';

const REQUIRED_FILES: Record<SherpaModelType, SherpaFileKey[]> = {
  vits: ['model', 'tokens'],
  matcha: ['acousticModel', 'vocoder', 'tokens'],
  kokoro: ['model', 'voices', 'tokens'],
  kitten: ['model', 'voices', 'tokens'],
  zipvoice: ['encoder', 'decoder', 'vocoder', 'tokens', 'lexicon'],
  pocket: ['lmFlow', 'lmMain', 'encoder', 'decoder', 'textConditioner', 'vocabJson', 'tokenScoresJson'],
};

/** Models that clone a voice from a reference sample (zero-shot). */
export const CLONING_TYPES: ReadonlySet<SherpaModelType> = new Set(['zipvoice', 'pocket']);
/** Models whose voices are vectors that can be blended. */
export const VECTOR_TYPES: ReadonlySet<SherpaModelType> = new Set(['kokoro', 'kitten']);

export class ManifestError extends Error {}

function fail(msg: string): never {
  throw new ManifestError(`models manifest: ${msg}`);
}

/**
 * The manifest's entries, checked. `found` are the models discovered in MODELS_DIR: an entry with the
 * id of one of them only needs what it changes (its speakers' names and genders, say); the rest is
 * the found model's.
 */
export function parseManifest(
  raw: unknown,
  modelsDir: string,
  found?: ReadonlyMap<string, SherpaModelEntry>,
): SherpaModelEntry[] {
  if (!raw || typeof raw !== 'object' || !Array.isArray((raw as { models?: unknown }).models)) fail('expected {"models": [...]}');
  const seen = new Set<string>();
  return (raw as { models: unknown[] }).models.map((m, i): SherpaModelEntry => {
    if (!m || typeof m !== 'object') fail(`models[${i}] is not an object`);
    const e = m as Record<string, unknown>;
    const id = e.id;
    if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/i.test(id)) fail(`models[${i}].id must be a simple name`);
    if (seen.has(id)) fail(`duplicate model id ${id}`);
    seen.add(id);
    const base = found?.get(id);
    const type = (e.type ?? base?.type) as SherpaModelType;
    if (!SHERPA_MODEL_TYPES.includes(type)) fail(`${id}: type must be one of ${SHERPA_MODEL_TYPES.join(', ')}`);
    const files = (e.files ?? {}) as Record<string, unknown>;
    const resolved: Partial<Record<SherpaFileKey, string>> = base && (!e.type || e.type === base.type) ? { ...base.files } : {};
    for (const [k, v] of Object.entries(files)) {
      if (typeof v !== 'string') fail(`${id}: files.${k} must be a path`);
      // Lexicons and rule FSTs may be several, comma-separated, as sherpa-onnx takes them.
      const paths = (k === 'lexicon' || k === 'ruleFsts' || k === 'ruleFars' ? v.split(',') : [v]).map((x) => {
        const p = path.resolve(modelsDir, x.trim());
        if (!p.startsWith(path.resolve(modelsDir) + path.sep)) fail(`${id}: files.${k} leaves the models folder`);
        if (!existsSync(p)) fail(`${id}: files.${k} (${x.trim()}) does not exist`);
        return p;
      });
      resolved[k as SherpaFileKey] = paths.join(',');
    }
    for (const k of REQUIRED_FILES[type]) if (!resolved[k]) fail(`${id}: a ${type} model needs files.${k}`);
    // ZipVoice's tokenizer looks the space symbol up unchecked: without it the native code aborts.
    if (
      type === 'zipvoice' &&
      !readFileSync(resolved.tokens!, 'utf8')
        .split('\n')
        .some((l) => /^\s+\d+\s*$/.test(l))
    ) {
      fail(`${id}: tokens.txt has no space symbol`);
    }
    const languages =
      Array.isArray(e.languages) && e.languages.every((l) => typeof l === 'string')
        ? (e.languages as string[])
        : e.languages === undefined && base
          ? base.languages
          : fail(`${id}: languages must be a list of BCP-47 tags`);
    const speakers =
      Array.isArray(e.speakers) && e.speakers.length
        ? e.speakers.map((s, j): SherpaSpeaker => {
            const o = s as Record<string, unknown>;
            if (typeof o.sid !== 'number' || !Number.isInteger(o.sid) || o.sid < 0)
              fail(`${id}: speakers[${j}].sid must be a non-negative integer`);
            const gender = o.gender === 'female' || o.gender === 'male' ? o.gender : 'neutral';
            return {
              sid: o.sid,
              name: typeof o.name === 'string' ? o.name : `Speaker ${o.sid}`,
              gender,
              ...(typeof o.pitchHz === 'number' ? { pitchHz: o.pitchHz } : {}),
              ...(Array.isArray(o.languages) ? { languages: o.languages as string[] } : {}),
            };
          })
        : base && e.speakers === undefined
          ? base.speakers
          : [{ sid: 0, name: typeof e.name === 'string' ? e.name : id, gender: 'neutral' as Gender }];
    const description = typeof e.description === 'string' ? e.description : base?.description;
    const quality = typeof e.quality === 'number' && Number.isFinite(e.quality) ? e.quality : base?.quality;
    return {
      id,
      name: typeof e.name === 'string' ? e.name : (base?.name ?? id),
      type,
      languages,
      ...(description ? { description } : {}),
      ...(base?.sampleRate ? { sampleRate: base.sampleRate } : {}),
      files: resolved,
      speakers,
      ...(typeof e.numThreads === 'number' ? { numThreads: e.numThreads } : {}),
      ...(e.options && typeof e.options === 'object'
        ? { options: e.options as Record<string, number> }
        : base?.options
          ? { options: base.options }
          : {}),
      ...(base?.licence ? { licence: base.licence } : {}),
      ...(quality !== undefined ? { quality } : {}),
    };
  });
}

/** Reads MODELS_DIR/manifest.json; undefined when there is none. */
export function readManifest(modelsDir: string): SherpaModelEntry[] | undefined {
  const file = path.join(modelsDir, 'manifest.json');
  if (!existsSync(file)) return undefined;
  return parseManifest(JSON.parse(readFileSync(file, 'utf8')), modelsDir);
}
