/**
 * A Piper voice's JSON config (`NAME.onnx.json`): its languages and speakers, and the conversion of a voice as
 * Piper distributes it into what sherpa-onnx runs (metadata and tokens.txt, into a cache).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Gender } from '../core/types.ts';
import { encodeOnnxMetadata } from './onnx-metadata.ts';
import { Missing } from './sherpa-folder.ts';
import type { SherpaSpeaker } from './sherpa-manifest.ts';
import { numbered, tagsFromName, titleCase, uniq, voiceTags, withFamily } from './sherpa-names.ts';

export interface PiperConfig {
  audio?: { sample_rate?: number };
  espeak?: { voice?: string };
  language?: { code?: string };
  num_speakers?: number;
  speaker_id_map?: Record<string, number>;
  phoneme_id_map?: Record<string, number | number[]>;
  phoneme_type?: string;
}

export function readPiperConfig(file: string): PiperConfig {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as PiperConfig;
    if (!c || typeof c !== 'object') throw new Error('not an object');
    return c;
  } catch (e) {
    throw new Missing(`${path.basename(file)} is not readable JSON (${(e as Error).message})`);
  }
}

export function piperLanguages(c: PiperConfig, name: string): string[] {
  if (c.language?.code) return withFamily(c.language.code);
  return uniq([...tagsFromName(name), ...voiceTags(c.espeak?.voice)]);
}

export function piperSpeakers(c: PiperConfig, fallback: string, count: number): SherpaSpeaker[] {
  const map = c.speaker_id_map && Object.keys(c.speaker_id_map).length ? c.speaker_id_map : undefined;
  if (map)
    return Object.entries(map)
      .filter(([, sid]) => Number.isInteger(sid) && sid >= 0)
      .sort((a, b) => a[1] - b[1])
      .map(([name, sid]) => ({ sid, name, gender: 'neutral' as Gender }));
  return numbered(count, fallback);
}

/** `en_US-lessac-medium` → Lessac (the voice's dataset, as Piper names its files). */
export function piperName(name: string): string {
  const m = /^[a-z]{2,3}_[A-Z]{2}-(.+?)-(x_low|low|medium|high)$/.exec(name);
  return titleCase(m ? m[1]! : name);
}

/**
 * A Piper voice as Piper distributes it has no metadata sherpa-onnx reads and no tokens.txt: both are
 * derived from its JSON config (as sherpa-onnx's scripts/piper/add_meta_data.py does) into a cache,
 * the model copied once with the metadata appended (protobuf fields concatenate).
 */
export function piperForSherpa(
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
