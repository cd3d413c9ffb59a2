/**
 * Finds the models in MODELS_DIR without a manifest: each subfolder holding an unpacked sherpa-onnx
 * text-to-speech release (vits-piper-*, vits-*, kokoro-*, kitten-*, matcha-* with its vocoder,
 * ZipVoice), and each Piper voice as Piper distributes it (NAME.onnx with NAME.onnx.json, loose or in
 * a folder). Type, languages, speakers and sample rate come from the files: the ONNX metadata that
 * sherpa-onnx's export scripts write, Piper's JSON config, Kokoro's voice names. `manifest.json`
 * overrides what is found (see scanModelsDir). The layouts are listed in docs/models.md.
 *
 * Every path is checked here, before native code sees one: sherpa-onnx exits the process on a
 * missing file. A folder that is incomplete or unreadable becomes a problem naming the file, and
 * is skipped.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Gender } from '../types.ts';
import { canonicalTag, espeakLanguageTags } from '../catalogue/languages.ts';
import { encodeOnnxMetadata, readOnnxMetadata } from './onnx-metadata.ts';
import { MODEL_RECORD_FILE, readModelRecord } from './model-record.ts';
import {
  ManifestError,
  parseManifest,
  type SherpaFileKey,
  type SherpaModelEntry,
  type SherpaModelType,
  type SherpaSpeaker,
} from './sherpa-manifest.ts';

export interface ModelProblem {
  /** The folder or file, relative to MODELS_DIR. */
  folder: string;
  message: string;
}

export interface ModelScan {
  models: SherpaModelEntry[];
  problems: ModelProblem[];
}

/** The files sherpa-onnx's eSpeak frontend opens in a data dir (its config checks). */
export const ESPEAK_DATA_FILES = ['phontab', 'phonindex', 'phondata', 'intonations'];

/** Kokoro voice names: first letter the language, second the gender (af_heart, bm_george, zf_xiaobei). */
const KOKORO_LANGUAGES: Record<string, string[]> = {
  a: ['en-US', 'en'],
  b: ['en-GB', 'en'],
  e: ['es'],
  f: ['fr-FR', 'fr'],
  h: ['hi'],
  i: ['it'],
  j: ['ja'],
  p: ['pt-BR', 'pt'],
  z: ['zh-CN', 'zh'],
};

/** Language names as sherpa-onnx's export scripts write them in the `language` metadata. */
const LANGUAGE_NAMES: Record<string, string> = {
  english: 'en',
  chinese: 'zh-CN',
  mandarin: 'zh-CN',
  cantonese: 'yue',
  german: 'de',
  french: 'fr',
  spanish: 'es',
  italian: 'it',
  japanese: 'ja',
  korean: 'ko',
  portuguese: 'pt',
  russian: 'ru',
  dutch: 'nl',
  polish: 'pl',
  arabic: 'ar',
  hindi: 'hi',
  persian: 'fa',
  farsi: 'fa',
  vietnamese: 'vi',
  turkish: 'tr',
  ukrainian: 'uk',
  czech: 'cs',
  swedish: 'sv',
  finnish: 'fi',
  danish: 'da',
  norwegian: 'no',
  greek: 'el',
  hungarian: 'hu',
  catalan: 'ca',
  romanian: 'ro',
  kazakh: 'kk',
  nepali: 'ne',
  swahili: 'sw',
  welsh: 'cy',
  icelandic: 'is',
  luxembourgish: 'lb',
  serbian: 'sr',
  slovak: 'sk',
  slovenian: 'sl',
  georgian: 'ka',
  latvian: 'lv',
  indonesian: 'id',
  malayalam: 'ml',
  thai: 'th',
  bengali: 'bn',
  telugu: 'te',
  tamil: 'ta',
  urdu: 'ur',
};

const uniq = (xs: string[]): string[] => [...new Set(xs)];

/** A tag and its primary language (en-US → en-US, en). */
function withFamily(tag: string): string[] {
  const t = canonicalTag(tag);
  const primary = t.split('-')[0]!;
  return t === primary ? [t] : [t, primary];
}

/** eSpeak voice codes as the metadata gives them: `en-us`, `zh en-us` (several, space-separated). */
function voiceTags(voice: string | undefined): string[] {
  if (!voice?.trim()) return [];
  return uniq(
    voice
      .trim()
      .split(/\s+/)
      .flatMap((v) => (v === 'zh' || v === 'cmn' ? ['zh-CN', 'zh'] : espeakLanguageTags(v))),
  );
}

function nameTags(language: string | undefined): string[] {
  if (!language) return [];
  return uniq(
    language
      .toLowerCase()
      .split(/[^a-z]+/)
      .flatMap((w) => (LANGUAGE_NAMES[w] ? withFamily(LANGUAGE_NAMES[w]) : [])),
  );
}

/** `vits-piper-en_US-lessac-medium`, `en_GB-alan-low` → en-US / en-GB. */
function tagsFromName(name: string): string[] {
  const m = /(?:^|[-_])([a-z]{2,3})_([A-Z]{2})(?:[-_.]|$)/.exec(name);
  return m ? withFamily(`${m[1]}-${m[2]}`) : [];
}

function titleCase(s: string): string {
  return s
    .split(/[_\s-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** A voice name of Kokoro: `af_heart` → Heart, female, American English. */
export function kokoroVoice(name: string): { name: string; gender: Gender; languages?: string[] } {
  // v0.19 also has bare prefixes (`af`: its default American female voice); v1.1-zh numbered ones (`zf_001`).
  const m = /^([a-z])([fm])(?:_(.+))?$/.exec(name);
  if (!m) return { name, gender: 'neutral' };
  const languages = KOKORO_LANGUAGES[m[1]!];
  return {
    name: !m[3] || /^\d+$/.test(m[3]) ? name : titleCase(m[3]),
    gender: m[2] === 'f' ? 'female' : 'male',
    ...(languages ? { languages } : {}),
  };
}

/** A voice name of Kitten: `expr-voice-2-f` → female. */
function kittenVoice(name: string): { name: string; gender: Gender } {
  const g = /[-_]([fm])$/.exec(name)?.[1];
  return { name, gender: g === 'f' ? 'female' : g === 'm' ? 'male' : 'neutral' };
}

/** Model files: the plain export first, then quantized ones (model.onnx before model.int8.onnx). */
function preferPlain(a: string, b: string): number {
  const q = (n: string): number => (/(int8|uint8|fp16|q8|quant)/i.test(n) ? 1 : 0);
  return q(a) - q(b) || a.length - b.length || a.localeCompare(b);
}

const idOf = (name: string): string =>
  name
    .replace(/\.onnx$/, '')
    .replace(/[^a-z0-9._-]+/gi, '-')
    .replace(/^[^a-z0-9]+/i, '');

class Missing extends Error {}

interface Folder {
  dir: string;
  /** Relative to MODELS_DIR, for reports. */
  rel: string;
  entries: Dirent[];
  has(name: string): boolean;
  file(name: string): string;
}

function folderOf(dir: string, modelsDir: string): Folder {
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
function phonemizerFiles(f: Folder): Partial<Record<SherpaFileKey, string>> {
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

interface Onnx {
  name: string;
  file: string;
  meta: Record<string, string>;
}

function numberOf(meta: Record<string, string>, key: string): number | undefined {
  const v = Number(meta[key]);
  return meta[key] !== undefined && Number.isFinite(v) ? v : undefined;
}

interface PiperConfig {
  audio?: { sample_rate?: number };
  espeak?: { voice?: string };
  language?: { code?: string };
  num_speakers?: number;
  speaker_id_map?: Record<string, number>;
  phoneme_id_map?: Record<string, number | number[]>;
  phoneme_type?: string;
}

function readPiperConfig(file: string): PiperConfig {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as PiperConfig;
    if (!c || typeof c !== 'object') throw new Error('not an object');
    return c;
  } catch (e) {
    throw new Missing(`${path.basename(file)} is not readable JSON (${(e as Error).message})`);
  }
}

function piperLanguages(c: PiperConfig, name: string): string[] {
  if (c.language?.code) return withFamily(c.language.code);
  return uniq([...tagsFromName(name), ...voiceTags(c.espeak?.voice)]);
}

function piperSpeakers(c: PiperConfig, fallback: string, count: number): SherpaSpeaker[] {
  const map = c.speaker_id_map && Object.keys(c.speaker_id_map).length ? c.speaker_id_map : undefined;
  if (map)
    return Object.entries(map)
      .filter(([, sid]) => Number.isInteger(sid) && sid >= 0)
      .sort((a, b) => a[1] - b[1])
      .map(([name, sid]) => ({ sid, name, gender: 'neutral' as Gender }));
  return numbered(count, fallback);
}

function numbered(count: number, name: string, gender: Gender = 'neutral'): SherpaSpeaker[] {
  if (count <= 1) return [{ sid: 0, name, gender }];
  return Array.from({ length: count }, (_, sid) => ({ sid, name: `${name} ${sid}`, gender }));
}

/** `en_US-lessac-medium` → Lessac (the voice's dataset, as Piper names its files). */
function piperName(name: string): string {
  const m = /^[a-z]{2,3}_[A-Z]{2}-(.+?)-(x_low|low|medium|high)$/.exec(name);
  return titleCase(m ? m[1]! : name);
}

/**
 * A Piper voice as Piper distributes it has no metadata sherpa-onnx reads and no tokens.txt: both are
 * derived from its JSON config (as sherpa-onnx's scripts/piper/add_meta_data.py does) into a cache,
 * the model copied once with the metadata appended (protobuf fields concatenate).
 */
function piperForSherpa(
  onnx: string,
  c: PiperConfig,
  cacheDir: string,
  hasMetadata = false,
): { model: string; tokens: string; sampleRate: number } {
  const st = statSync(onnx);
  const key = createHash('sha256').update(`${onnx}\0${st.size}\0${st.mtimeMs}`).digest('hex').slice(0, 16);
  const dir = path.join(cacheDir, `${path.basename(onnx, '.onnx')}-${key}`);
  const model = hasMetadata ? onnx : path.join(dir, 'model.onnx');
  const tokens = path.join(dir, 'tokens.txt');
  let sampleRate = c.audio?.sample_rate ?? 22050;
  if (sampleRate === 22500) sampleRate = 22050;
  if (!existsSync(model) || !existsSync(tokens)) {
    if (!c.phoneme_id_map || typeof c.phoneme_id_map !== 'object')
      throw new Missing(`${path.basename(onnx)}.json has no phoneme_id_map`);
    mkdirSync(dir, { recursive: true });
    const lines = Object.entries(c.phoneme_id_map)
      .filter(([s]) => s !== '\n')
      .map(([s, id]) => `${s} ${Array.isArray(id) ? id[0] : id}`);
    const voice = c.espeak?.voice === 'pt-PT' ? 'pt' : (c.espeak?.voice ?? 'en-us');
    const meta = encodeOnnxMetadata({
      model_type: 'vits',
      comment: 'piper',
      language: c.language?.code ?? voice,
      voice,
      version: 1,
      has_espeak: 1,
      n_speakers: c.num_speakers ?? 1,
      sample_rate: sampleRate,
    });
    // Written beside, then renamed: the pool's threads may scan at the same time.
    const tmp = `.${process.pid}-${Math.random().toString(36).slice(2)}`;
    writeFileSync(tokens + tmp, lines.join('\n') + '\n');
    if (!hasMetadata) writeFileSync(model + tmp, Buffer.concat([readFileSync(onnx), meta]));
    renameSync(tokens + tmp, tokens);
    if (!hasMetadata) renameSync(model + tmp, model);
  }
  return { model, tokens, sampleRate };
}

function entry(
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

function kokoroLike(f: Folder, m: Onnx, type: 'kokoro' | 'kitten'): SherpaModelEntry {
  const files = { model: m.file, voices: f.file('voices.bin'), tokens: f.file('tokens.txt'), ...phonemizerFiles(f) };
  const count = numberOf(m.meta, 'n_speakers') ?? 1;
  const names = (m.meta.speaker_names ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const speakers: SherpaSpeaker[] = names.length
    ? names.slice(0, Math.max(count, 1)).map((n, sid) => {
        const v = type === 'kokoro' ? kokoroVoice(n) : kittenVoice(n);
        return { sid, ...v };
      })
    : numbered(count, type === 'kokoro' ? 'Kokoro' : 'Kitten');
  const fromVoices = uniq(speakers.flatMap((s) => s.languages ?? []));
  const languages = fromVoices.length ? fromVoices : uniq([...voiceTags(m.meta.voice), ...nameTags(m.meta.language)]);
  const label = titleCase(f.rel.split(path.sep).pop()!);
  return entry(
    f.rel,
    idOf(path.basename(f.dir)),
    type,
    label,
    languages,
    files,
    speakers,
    numberOf(m.meta, 'sample_rate'),
    `${type} model (sherpa-onnx)`,
  );
}

function analyseFolder(f: Folder, cacheDir: string): SherpaModelEntry {
  const folderName = path.basename(f.dir);
  const id = idOf(folderName);
  const label = titleCase(folderName);
  const onnxNames = f.entries
    .filter((e) => e.isFile() && e.name.endsWith('.onnx'))
    .map((e) => e.name)
    .sort(preferPlain);
  if (!onnxNames.length) throw new Missing('no .onnx model in the folder');
  const onnx: Onnx[] = onnxNames.map((name) => {
    const file = path.join(f.dir, name);
    try {
      return { name, file, meta: readOnnxMetadata(file) };
    } catch (e) {
      throw new Missing(`${name} is not readable (${(e as Error).message.replace(`${file}: `, '')})`);
    }
  });
  const byType = (t: string): Onnx | undefined => onnx.find((o) => o.meta.model_type === t);

  const kokoro = byType('kokoro');
  if (kokoro) return kokoroLike(f, kokoro, 'kokoro');
  const kitten = byType('kitten-tts');
  if (kitten) return kokoroLike(f, kitten, 'kitten');

  const encoder = onnx.find((o) => /encoder/.test(o.name));
  const decoder = onnx.find((o) => /decoder/.test(o.name));
  if (byType('zipvoice') || (encoder && decoder)) {
    if (!encoder) throw new Missing('the ZipVoice encoder (encoder.onnx) is missing');
    if (!decoder) throw new Missing('the ZipVoice decoder (decoder.onnx) is missing');
    const vocoder = onnx.find((o) => o !== encoder && o !== decoder && !/encoder|decoder/.test(o.name));
    if (!vocoder) throw new Missing('the vocoder (vocos_24khz.onnx) is missing: put it in the folder');
    const files = {
      encoder: encoder.file,
      decoder: decoder.file,
      vocoder: vocoder.file,
      tokens: f.file('tokens.txt'),
      ...phonemizerFiles(f),
    };
    if (!files.lexicon) throw new Missing('lexicon.txt is missing');
    // Its tokenizer looks the space symbol up unchecked: without it the native code aborts.
    if (
      !readFileSync(files.tokens, 'utf8')
        .split('\n')
        .some((l) => /^\s+\d+\s*$/.test(l))
    )
      throw new Missing('tokens.txt has no space symbol');
    const fromName = uniq([
      ...(/(^|[-_])zh([-_]|$)/.test(folderName) ? ['zh-CN', 'zh'] : []),
      ...(/(^|[-_])en([-_]|$)/.test(folderName) ? ['en'] : []),
    ]);
    const rate = numberOf(decoder.meta, 'sample_rate') ?? numberOf(vocoder.meta, 'sample_rate');
    return entry(
      f.rel,
      id,
      'zipvoice',
      label,
      fromName.length ? fromName : ['en', 'zh-CN', 'zh'],
      files,
      [{ sid: 0, name: label, gender: 'neutral' }],
      rate,
      'zipvoice model (sherpa-onnx)',
    );
  }

  const matcha = byType('matcha-tts');
  if (matcha) {
    const vocoder = onnx.find((o) => o !== matcha && o.meta.model_type !== 'matcha-tts');
    if (!vocoder) throw new Missing('the vocoder (e.g. vocos-22khz-univ.onnx) is missing: put it in the folder');
    const files = { acousticModel: matcha.file, vocoder: vocoder.file, tokens: f.file('tokens.txt'), ...phonemizerFiles(f) };
    const languages = uniq([...voiceTags(matcha.meta.voice), ...nameTags(matcha.meta.language), ...tagsFromName(folderName)]);
    const fallback = numberOf(matcha.meta, 'jieba') || /(^|[-_])zh([-_]|$)/.test(folderName) ? ['zh-CN', 'zh'] : ['en'];
    return entry(
      f.rel,
      id,
      'matcha',
      label,
      languages.length ? languages : fallback,
      files,
      numbered(numberOf(matcha.meta, 'n_speakers') ?? 1, label),
      numberOf(matcha.meta, 'sample_rate'),
      'matcha model (sherpa-onnx)',
    );
  }

  // VITS: a sherpa-onnx export (metadata with sample_rate and n_speakers), or a Piper voice with its JSON.
  const vits =
    onnx.find((o) => o.meta.model_type === 'vits') ??
    onnx.find((o) => o.meta.sample_rate !== undefined && o.meta.n_speakers !== undefined) ??
    onnx.find((o) => f.has(`${o.name}.json`));
  if (!vits) throw new Missing(`no model sherpa-onnx can run: ${onnxNames.join(', ')} carry no model_type metadata`);
  return vitsEntry(f, vits, id, cacheDir);
}

function vitsEntry(f: Folder, vits: Onnx, id: string, cacheDir: string): SherpaModelEntry {
  const base = vits.name.replace(/\.onnx$/, '');
  const config = f.has(`${vits.name}.json`) ? readPiperConfig(path.join(f.dir, `${vits.name}.json`)) : undefined;
  // A loose voice takes nothing else from MODELS_DIR itself: a lexicon there is not its own.
  const phonemizer = f.rel === '.' ? {} : phonemizerFiles(f);
  const ready = vits.meta.sample_rate !== undefined && vits.meta.n_speakers !== undefined;
  let files: Partial<Record<SherpaFileKey, string>>;
  let sampleRate = numberOf(vits.meta, 'sample_rate');
  if (ready && (f.rel !== '.' || !config)) files = { model: vits.file, tokens: f.file('tokens.txt'), ...phonemizer };
  else {
    if (!config) throw new Missing(`${vits.name} has no metadata and ${vits.name}.json is missing`);
    // A loose sherpa-onnx export (a vits-piper model out of its folder) keeps its model; its tokens come from the JSON.
    const made = piperForSherpa(vits.file, config, cacheDir, ready);
    files = { model: made.model, tokens: made.tokens, ...phonemizer };
    sampleRate = ready ? sampleRate : made.sampleRate;
  }
  const isPiper = !!config || /piper/i.test(vits.meta.comment ?? '');
  const count = numberOf(vits.meta, 'n_speakers') ?? config?.num_speakers ?? 1;
  const name = isPiper ? piperName(base) : titleCase(path.basename(f.dir));
  const speakers = config ? piperSpeakers(config, name, count) : numbered(count, name);
  const languages = config
    ? piperLanguages(config, base)
    : uniq([
        ...tagsFromName(base),
        ...tagsFromName(path.basename(f.dir)),
        ...voiceTags(vits.meta.voice),
        ...nameTags(vits.meta.language),
      ]);
  return entry(
    f.rel === '.' ? vits.name : f.rel,
    id,
    'vits',
    name,
    languages,
    files,
    speakers,
    sampleRate,
    `${isPiper ? 'Piper ' : ''}vits model (sherpa-onnx)`,
  );
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
