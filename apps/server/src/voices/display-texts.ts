import { languageName, type MessageLocale, type Voice } from '@polyvox/contracts';
import type { ModelInfo, VoiceInfo } from '@polyvox/speech';

/** Text in the two Chinese locales; English is the engines' own text. */
type Zh = readonly [zhCN: string, zhTW: string];

function zh(locale: MessageLocale, texts: Zh): string {
  return locale === 'zh-CN' ? texts[0] : texts[1];
}

const MODEL_DESCRIPTIONS = new Map<string, Zh>([
  [
    'espeak-ng',
    [
      '共振峰合成，约 140 种语言和口音；速度快、发音清晰，可混合声音。',
      '共振峰合成，約 140 種語言和口音；速度快、發音清晰，可混合聲音。',
    ],
  ],
  ['flite', ['CMU Flite 英语声音：体积小，统计参数合成，听感自然。', 'CMU Flite 英語聲音：體積小，統計參數合成，聽感自然。']],
  ['gnuspeech', ['发音器官合成：模拟的声道，从婴儿到成人。', '發音器官合成：模擬的聲道，從嬰兒到成人。']],
]);

const FLITE_DESCRIPTIONS = new Map<string, Zh>([
  ['slt', ['美式英语女声，clustergen 统计参数声音', '美式英語女聲，clustergen 統計參數聲音']],
  ['kal16', ['美式英语男声，双音素拼接声音', '美式英語男聲，雙音素拼接聲音']],
  ['kal', ['美式英语男声，电话音质的双音素拼接声音', '美式英語男聲，電話音質的雙音素拼接聲音']],
  ['awb', ['苏格兰英语男声，clustergen 声音', '蘇格蘭英語男聲，clustergen 聲音']],
  ['rms', ['美式英语男声，clustergen 声音', '美式英語男聲，clustergen 聲音']],
]);

const GNUSPEECH_TRACTS = new Map<string, Zh>([
  ['male', ['成年男性', '成年男性']],
  ['female', ['成年女性', '成年女性']],
  ['large_child', ['大龄儿童', '大齡兒童']],
  ['small_child', ['幼龄儿童', '幼齡兒童']],
  ['baby', ['婴儿', '嬰兒']],
]);

const VARIANT_WORDS = new Map<string, Zh>([
  ['Default', ['默认', '預設']],
  ['Male', ['男声', '男聲']],
  ['Female', ['女声', '女聲']],
  ['Grandma', ['奶奶', '奶奶']],
  ['Grandpa', ['爷爷', '爺爺']],
  ['Whisper', ['耳语', '耳語']],
  ['Croak', ['沙哑', '沙啞']],
]);

/** A model's description in the request's language (names are product names, the same everywhere). */
export function modelDescription(model: ModelInfo, locale: MessageLocale): string {
  if (locale === 'en') return model.description;
  const known = MODEL_DESCRIPTIONS.get(model.id);
  if (known) return zh(locale, known);
  if (model.type === 'remote') return zh(locale, ['远程语音服务', '遠端語音服務']);
  return zh(locale, [`神经网络语音模型（${model.name}）`, `神經網路語音模型（${model.name}）`]);
}

/** An eSpeak variant label ("Male 3", "Default", "Grandma") in the request's language. */
function variantLabel(label: string, locale: MessageLocale): string {
  const m = /^(\p{L}+)(?: (\d+))?$/u.exec(label);
  const word = m ? VARIANT_WORDS.get(m[1]!) : undefined;
  if (!word) return label;
  return m![2] ? `${zh(locale, word)} ${m![2]}` : zh(locale, word);
}

/**
 * A library voice's display texts in the request's language: eSpeak's names are a language and a
 * variant, both translated; Flite's and GnuSpeech's personal names stay, their descriptions change.
 */
export function localizeVoice(voice: Voice, info: VoiceInfo, locale: MessageLocale): Voice {
  if (locale === 'en') return voice;
  if (info.engine === 'espeak') {
    const at = voice.name.lastIndexOf(' · ');
    const variant = at === -1 ? '' : voice.name.slice(at + 3);
    const language = languageName(info.languages[0] ?? '', locale);
    return { ...voice, name: variant ? `${language} · ${variantLabel(variant, locale)}` : language };
  }
  if (info.engine === 'flite') {
    const text = FLITE_DESCRIPTIONS.get(info.variant);
    return text ? { ...voice, description: zh(locale, text) } : voice;
  }
  if (info.engine === 'gnuspeech') {
    const tract = GNUSPEECH_TRACTS.get(info.variant);
    const cm = /\(([\d.]+) cm\)/.exec(voice.description ?? '')?.[1];
    if (!tract) return voice;
    const size = cm ? `（${cm} ${zh(locale, ['厘米', '公分'])}）` : '';
    return { ...voice, description: `${zh(locale, tract)}${zh(locale, ['声道的发音器官模型', '聲道的發音器官模型'])}${size}` };
  }
  return voice;
}
