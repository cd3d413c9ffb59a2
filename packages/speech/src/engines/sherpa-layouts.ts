/**
 * The per-layout recognisers: what a model folder holds (Kokoro, Kitten, ZipVoice, Matcha with its vocoder, VITS
 * as sherpa-onnx exports it, a Piper voice) read from its ONNX metadata and files into a model entry. A folder
 * that lacks a file its layout needs throws `Missing`, naming it. The folder walk is sherpa-discover.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readOnnxMetadata } from './onnx-metadata.ts';
import { entry, idOf, Missing, numberOf, phonemizerFiles, preferPlain, type Folder, type Onnx } from './sherpa-folder.ts';
import type { SherpaFileKey, SherpaModelEntry, SherpaSpeaker } from './sherpa-manifest.ts';
import { kittenVoice, kokoroVoice, nameTags, numbered, tagsFromName, titleCase, uniq, voiceTags } from './sherpa-names.ts';
import { piperForSherpa, piperLanguages, piperName, piperSpeakers, readPiperConfig } from './sherpa-piper.ts';

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

export function analyseFolder(f: Folder, cacheDir: string): SherpaModelEntry {
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

export function vitsEntry(f: Folder, vits: Onnx, id: string, cacheDir: string): SherpaModelEntry {
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
