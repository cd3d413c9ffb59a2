/**
 * Which sherpa-onnx models phonemize with eSpeak NG, and how a phoneme rule reaches eSpeak NG through them.
 *
 * sherpa-onnx turns text into phonemes with eSpeak NG's `espeak_TextToPhonemes` (piper-phonemize's
 * `phonemize_eSpeak`, called by `CallPhonemizeEspeak` in its `piper-phonemize-lexicon.cc`) for Piper/Coqui/icefall
 * VITS models given an espeak-ng-data folder, Matcha models with `has_espeak`, Kokoro v0.19 (metadata `version` < 2)
 * and Kitten. eSpeak NG reads `[[…]]` as phoneme mnemonics only when `espeakPHONEMES` was given to `espeak_Synth`
 * (`option_phoneme_input`, set in `speech.c`'s `Synthesize` alone, 0 otherwise): sherpa-onnx never calls it, so
 * `[[h@'loU]]` would be read as the letters and signs it holds. eSpeak NG's own internal opening, `[` followed by
 * U+0002 (what its `readclause.c` writes for the phonemes of an SSML `<say-as>` or `<audio>`), starts phoneme mode in
 * `TranslateClause` (`translate.c`) whatever that option: a rule's mnemonics are given as `[\u0002…]]`.
 *
 * The others take no phonemes, and a phoneme rule falls back there: VITS models with a character frontend or a lexicon
 * (Coqui characters, MeloTTS, jieba/g2pw Chinese), Matcha's Chinese and Chinese-English models, Kokoro ≥ v1.0 (its
 * multi-language lexicon frontend), ZipVoice (a Chinese-English lexicon frontend) and Pocket (its own tokenizer).
 */
import { readOnnxMetadata } from './onnx-metadata.ts';
import type { SherpaModelEntry } from './sherpa-manifest.ts';

/** The metadata of a model file, or none when it cannot be read (the model then takes no phonemes). */
function metadata(file: string | undefined): Record<string, string> | undefined {
  if (!file) return undefined;
  try {
    return readOnnxMetadata(file);
  } catch {
    return undefined;
  }
}

const flag = (meta: Record<string, string>, key: string): boolean => Number(meta[key] ?? 0) !== 0;

/** Whether sherpa-onnx phonemizes this model's text with eSpeak NG (its `InitFrontend`, per model type). */
export function phonemizesWithEspeak(m: SherpaModelEntry): boolean {
  const f = m.files;
  switch (m.type) {
    case 'vits': {
      const meta = metadata(f.model);
      if (!meta) return false;
      const comment = meta.comment ?? '';
      // sherpa.ts gives eSpeak's data to a VITS model without a lexicon, or with its own espeak-ng-data.
      const dataDir = !!f.dataDir || !f.lexicon;
      return (
        meta.frontend !== 'characters' &&
        !flag(meta, 'jieba') &&
        !flag(meta, 'has_g2pw') &&
        !comment.includes('melo') &&
        /piper|coqui|icefall|Inflect/.test(comment) &&
        dataDir
      );
    }
    case 'matcha': {
      const meta = metadata(f.acousticModel);
      return !!meta && meta.voice !== 'zh en-us' && !flag(meta, 'jieba') && flag(meta, 'has_espeak');
    }
    case 'kokoro': {
      const meta = metadata(f.model);
      return !!meta && Number(meta.version ?? 1) < 2;
    }
    case 'kitten':
      return true;
    default:
      return false;
  }
}

/**
 * The text as such a model is given it: a rule's eSpeak NG mnemonics `[[…]]` (text/lexicon.ts) opened as eSpeak NG
 * opens phonemes itself, `[` U+0002; the text's own control characters go first, so none can open phonemes.
 */
export function espeakPhonemeInput(text: string): string {
  return text
    .replace(/\p{Cc}/gu, (c) => (c === '\n' ? c : ' '))
    .replace(/\[\[([^[\]\n]+)\]\]/g, (_, phones: string) => `[\u0002${phones}]]`);
}
