import type { AiLabelKind, AudioFormat, TextNormalization } from '@polyvox/speech';
import { countCharacters } from '@polyvox/speech';
import { readMarkup, type TextType } from '../pronunciation/ssml.js';
import type { PronunciationLocator, TtsInput } from './types.js';

/** The contract's request body (snake_case) as the service's input. */
export function ttsInput(
  body: {
    text: string;
    voice_id: string;
    language?: string;
    format: AudioFormat;
    speed: number;
    pitch: number;
    ai_label?: AiLabelKind | undefined;
    pronunciation_dictionary_locators?: PronunciationLocator[] | undefined;
    apply_text_normalization?: TextNormalization | undefined;
    text_type?: TextType | undefined;
  },
  accountId?: string,
): TtsInput {
  return {
    ...(accountId ? { accountId } : {}),
    text: body.text,
    voiceId: body.voice_id,
    format: body.format,
    speed: body.speed,
    pitch: body.pitch,
    ...(body.language ? { language: body.language } : {}),
    ...(body.ai_label ? { aiLabel: body.ai_label } : {}),
    ...(body.pronunciation_dictionary_locators ? { pronunciationLocators: body.pronunciation_dictionary_locators } : {}),
    ...(body.apply_text_normalization ? { normalization: body.apply_text_normalization } : {}),
    ...(body.text_type ? { textType: body.text_type } : {}),
  };
}

/** The characters a text is priced by (and held to the plan's limit by): SSML's spoken ones, else all but whitespace. */
export function pricedCharacters(text: string, textType?: TextType): number {
  return readMarkup(text, textType)?.characters ?? countCharacters(text);
}
