/**
 * Which sherpa-onnx models phonemize with eSpeak NG, and how a phoneme rule reaches eSpeak NG through them.
 *
 * sherpa-onnx turns text into phonemes with eSpeak NG's `espeak_TextToPhonemes` (piper-phonemize's
 * `phonemize_eSpeak`, called by `CallPhonemizeEspeak` in its `piper-phonemize-lexicon.cc`) for Piper/Coqui/icefall
 * VITS models given an espeak-ng-data folder, Matcha models with `has_espeak`, Kokoro and Kitten. eSpeak NG reads
 * `[[…]]` as phoneme mnemonics only when `espeakPHONEMES` was given to `espeak_Synth` (`option_phoneme_input`, set in
 * `speech.c`'s `Synthesize` alone, 0 otherwise): sherpa-onnx never calls it, so `[[h@l'oU]]` would be read as the
 * letters and signs it holds. eSpeak NG's own internal opening, `[` followed by U+0002 (what its `readclause.c` writes
 * for the phonemes of an SSML `<say-as>` or `<audio>`), starts phoneme mode in `TranslateClause` (`translate.c`)
 * whatever that option: a rule's mnemonics are given as `[\u0002…]]`.
 *
 * Kokoro v1.0 and later (metadata `version` 2) read text with `KokoroMultiLangLexicon` (`kokoro-multi-lang-lexicon.cc`):
 * Han runs go to its Chinese lexicon, and every other run, given a language (the model's `lang` option, else its
 * metadata `voice`, `en-us` in the v1.0 and v1.1-zh exports), goes whole to the same `ConvertTextToTokenIdsKokoroOrKitten`
 * as v0.19, so the marker reaches eSpeak NG there too. Before that, the frontend replaces `:` by `,` and then `：`
 * (U+FF1A) by `:`: eSpeak NG's length mark is written as `：` for it. Only without a language does it split the text
 * into words (`SplitUtf8`, which cuts at every ASCII sign, `[` and `@` included) and look each up; the marker cannot
 * survive that, and such a model takes no phonemes.
 *
 * The others take no phonemes, and a phoneme rule falls back there: VITS models with a character frontend or a lexicon
 * (Coqui characters, MeloTTS, jieba/g2pw Chinese), Matcha's Chinese and Chinese-English models, ZipVoice and Pocket.
 * ZipVoice reads text with `MatchaTtsLexicon` (`matcha-tts-lexicon.cc`): it splits the text into words with
 * `SplitUtf8` and gives eSpeak NG one word at a time (`en-us`, for a word its lexicon lacks), so `[`, U+0002 and the
 * mnemonics' signs never reach eSpeak NG together. Pocket has no phonemes at all: a SentencePiece tokenizer reads the
 * text's letters (`offline-tts-pocket-impl.h`).
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

/** How a model's frontend hands text to eSpeak NG: the eSpeak NG voice it phonemizes with. */
export interface EspeakFrontend {
  /** The eSpeak NG voice (a language) the frontend gives eSpeak NG, whose phoneme table a rule is written in. */
  voice: string;
  /** Kokoro ≥ v1.0: its frontend turns `:` into `,` and `：` into `:`, so eSpeak NG's length mark is written `：`. */
  fullwidthColon: boolean;
}

/** How sherpa-onnx phonemizes this model's text with eSpeak NG (its `InitFrontend`, per model type), or null. */
export function espeakFrontend(m: SherpaModelEntry): EspeakFrontend | null {
  const f = m.files;
  const voiceOf = (meta: Record<string, string>) => ({ voice: meta.voice || 'en-us', fullwidthColon: false });
  switch (m.type) {
    case 'vits': {
      const meta = metadata(f.model);
      if (!meta) return null;
      const comment = meta.comment ?? '';
      // sherpa.ts gives eSpeak's data to a VITS model without a lexicon, or with its own espeak-ng-data.
      const dataDir = !!f.dataDir || !f.lexicon;
      const espeak =
        meta.frontend !== 'characters' &&
        !flag(meta, 'jieba') &&
        !flag(meta, 'has_g2pw') &&
        !comment.includes('melo') &&
        /piper|coqui|icefall|Inflect/.test(comment) &&
        dataDir;
      return espeak ? voiceOf(meta) : null;
    }
    case 'matcha': {
      const meta = metadata(f.acousticModel);
      return meta && meta.voice !== 'zh en-us' && !flag(meta, 'jieba') && flag(meta, 'has_espeak') ? voiceOf(meta) : null;
    }
    case 'kokoro': {
      const meta = metadata(f.model);
      if (!meta) return null;
      if (Number(meta.version ?? 1) < 2) return voiceOf(meta);
      // sherpa.ts passes the `lang` option only beside a dictionary folder; without one the metadata's voice is used.
      const lang = (f.dictDir ? String(m.options?.lang ?? '') : '') || meta.voice || '';
      return lang ? { voice: lang, fullwidthColon: true } : null;
    }
    case 'kitten': {
      const meta = metadata(f.model);
      return { voice: meta?.voice || 'en-us', fullwidthColon: false };
    }
    default:
      return null;
  }
}

/** Whether sherpa-onnx phonemizes this model's text with eSpeak NG. */
export function phonemizesWithEspeak(m: SherpaModelEntry): boolean {
  return espeakFrontend(m) !== null;
}

/**
 * The text as such a model is given it: a rule's eSpeak NG mnemonics `[[…]]` (text/lexicon.ts) opened as eSpeak NG
 * opens phonemes itself, `[` U+0002; the text's own control characters go first, so none can open phonemes. eSpeak
 * NG drops a length mark just before the closing `]]` (it names `:` a phoneme there): `|`, its phoneme separator,
 * keeps it on its vowel.
 */
export function espeakPhonemeInput(
  text: string,
  frontend: Pick<EspeakFrontend, 'fullwidthColon'> = { fullwidthColon: false },
): string {
  return text
    .replace(/\p{Cc}/gu, (c) => (c === '\n' ? c : ' '))
    .replace(/\[\[([^[\]\n]+)\]\]/g, (_, phones: string) => {
      const closed = phones.endsWith(':') ? `${phones}|` : phones;
      return `[\u0002${frontend.fullwidthColon ? closed.replace(/:/g, '\uff1a') : closed}]]`;
    });
}
