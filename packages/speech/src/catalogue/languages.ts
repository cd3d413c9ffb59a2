/** BCP-47 tags for the engines' language names, and the sentence each language's preview reads. */

const SPECIAL: Record<string, string[]> = {
  cmn: ['zh-CN', 'zh', 'zh-TW', 'cmn'],
  'cmn-latn-pinyin': ['zh-Latn-pinyin', 'zh'],
  yue: ['yue', 'zh-HK', 'zh'],
  'yue-latn-jyutping': ['yue-Latn-jyutping', 'yue'],
  en: ['en-GB', 'en'],
  fr: ['fr-FR', 'fr'],
  'ca-ba': ['ca-x-ba', 'ca'],
  'ca-nw': ['ca-x-nw', 'ca'],
  'ca-va': ['ca-x-va', 'ca'],
  'ru-cl': ['ru-x-cl', 'ru'],
  chr: ['chr'],
  nb: ['nb', 'no'],
  // eSpeak's Klingon is written in pIqaD: tlh in the Piqd script.
  piqd: ['tlh-Piqd', 'tlh'],
  'en-us-nyc': ['en-US-x-nyc', 'en-US', 'en'],
};

/** Canonical casing: language lower, script Title, region UPPER, private use lower. */
export function canonicalTag(tag: string): string {
  const parts = tag.split(/[-_]/);
  let privateUse = false;
  return parts
    .map((p, i) => {
      if (i === 0 || privateUse) return p.toLowerCase();
      if (p.toLowerCase() === 'x') {
        privateUse = true;
        return 'x';
      }
      if (/^[a-z]{4}$/i.test(p)) return p[0]!.toUpperCase() + p.slice(1).toLowerCase();
      if (/^[a-z]{2}$/i.test(p) || /^\d{3}$/.test(p)) return p.toUpperCase();
      return p.toLowerCase();
    })
    .join('-');
}

/** BCP-47 tags for an espeak voice, from its identifier's last segment (`gmw/en-US` → en-US, en). */
export function espeakLanguageTags(identifier: string): string[] {
  const base = identifier.split('/').pop()!.toLowerCase();
  const special = Object.hasOwn(SPECIAL, base) ? SPECIAL[base] : undefined;
  if (special) return special;
  const tag = canonicalTag(base);
  const primary = tag.split('-')[0]!;
  return tag === primary ? [tag] : [tag, primary];
}

/** The primary language subtag, with the Chinese family folded: cmn / yue / zh-* → zh. */
export function languageFamily(tag: string): string {
  const primary = tag.toLowerCase().split('-')[0]!;
  if (primary === 'cmn' || primary === 'yue' || primary === 'zh' || primary === 'hak') return 'zh';
  if (primary === 'nb' || primary === 'nn' || primary === 'no') return 'no';
  return primary;
}

const PREVIEW: Record<string, string> = {
  en: 'Hello! This is my voice. I can read your text aloud, clearly and naturally.',
  'zh-CN': '你好！这是我的声音。我可以把你的文字清楚自然地读出来。',
  'zh-TW': '你好！這是我的聲音。我可以把你的文字清楚自然地讀出來。',
  yue: '你好！呢個係我嘅聲音。我可以將你嘅文字清清楚楚噉讀出嚟。',
  ja: 'こんにちは。これは私の声です。あなたの文章を読み上げます。',
  ko: '안녕하세요. 이것은 제 목소리입니다. 당신의 글을 읽어 드릴게요.',
  es: '¡Hola! Esta es mi voz. Puedo leer tu texto en voz alta.',
  fr: 'Bonjour ! Voici ma voix. Je peux lire votre texte à voix haute.',
  de: 'Hallo! Das ist meine Stimme. Ich kann Ihren Text vorlesen.',
  it: 'Ciao! Questa è la mia voce. Posso leggere il tuo testo ad alta voce.',
  pt: 'Olá! Esta é a minha voz. Posso ler o seu texto em voz alta.',
  ru: 'Здравствуйте! Это мой голос. Я могу прочитать ваш текст вслух.',
  uk: 'Вітаю! Це мій голос. Я можу прочитати ваш текст уголос.',
  bg: 'Здравейте! Това е моят глас. Мога да прочета текста ви на глас.',
  ar: 'مرحبا! هذا صوتي. يمكنني قراءة نصك بصوت عال.',
  hi: 'नमस्ते! यह मेरी आवाज़ है। मैं आपका पाठ पढ़ सकता हूँ।',
  bn: 'নমস্কার! এটি আমার কণ্ঠস্বর। আমি আপনার লেখা পড়তে পারি।',
  id: 'Halo! Ini suara saya. Saya bisa membacakan teks Anda.',
  ms: 'Helo! Ini suara saya. Saya boleh membaca teks anda.',
  th: 'สวัสดี นี่คือเสียงของฉัน ฉันอ่านข้อความของคุณได้',
  vi: 'Xin chào! Đây là giọng nói của tôi. Tôi có thể đọc văn bản của bạn.',
  tr: 'Merhaba! Bu benim sesim. Metninizi yüksek sesle okuyabilirim.',
  pl: 'Cześć! To jest mój głos. Mogę przeczytać twój tekst na głos.',
  nl: 'Hallo! Dit is mijn stem. Ik kan je tekst voorlezen.',
  sv: 'Hej! Det här är min röst. Jag kan läsa upp din text.',
  da: 'Hej! Dette er min stemme. Jeg kan læse din tekst højt.',
  no: 'Hei! Dette er stemmen min. Jeg kan lese teksten din høyt.',
  fi: 'Hei! Tämä on minun ääneni. Voin lukea tekstisi ääneen.',
  cs: 'Ahoj! Tohle je můj hlas. Mohu vám přečíst váš text.',
  sk: 'Ahoj! Toto je môj hlas. Môžem vám prečítať váš text.',
  hu: 'Helló! Ez az én hangom. Fel tudom olvasni a szövegedet.',
  ro: 'Bună! Aceasta este vocea mea. Pot citi textul tău cu voce tare.',
  el: 'Γεια σας! Αυτή είναι η φωνή μου. Μπορώ να διαβάσω το κείμενό σας.',
  he: 'שלום! זה הקול שלי. אני יכול להקריא את הטקסט שלך.',
  fa: 'سلام! این صدای من است. من می‌توانم متن شما را بخوانم.',
  ur: 'السلام علیکم! یہ میری آواز ہے۔ میں آپ کا متن پڑھ سکتا ہوں۔',
  ta: 'வணக்கம்! இது என் குரல். உங்கள் உரையை என்னால் படிக்க முடியும்.',
  hr: 'Bok! Ovo je moj glas. Mogu pročitati vaš tekst naglas.',
  ca: 'Hola! Aquesta és la meva veu. Puc llegir el teu text en veu alta.',
  eo: 'Saluton! Jen mia voĉo. Mi povas laŭtlegi vian tekston.',
  // Languages whose eSpeak voice does not read digits.
  chr: 'Osiyo! Tohitsu? Wado.',
  cv: 'Салам! Ку манӑн сасӑ. Эпӗ сирӗн текста вулама пултаратӑп.',
  sjn: 'Mae govannen! Pedo mellon a minno.',
  sw: 'Habari! Hii ni sauti yangu. Ninaweza kusoma maandishi yako.',
};

/**
 * A sentence for a language's preview. Languages without one count from one to five: every
 * engine reads digits in the voice's own language, so the preview still speaks it.
 */
export function previewTextFor(tag: string): string {
  const lower = tag.toLowerCase();
  if (lower.startsWith('yue')) return PREVIEW.yue!;
  if (lower === 'zh-tw' || lower === 'zh-hk') return PREVIEW['zh-TW']!;
  if (lower.startsWith('zh-latn')) return 'Ni hao! Zhe shi wo de sheng yin.';
  if (languageFamily(lower) === 'zh' && lower.startsWith('hak')) return '1, 2, 3, 4, 5.';
  if (languageFamily(lower) === 'zh') return PREVIEW['zh-CN']!;
  const family = languageFamily(lower);
  // hasOwn: tags come from operator manifests and requests; `constructor` must not be a preview.
  return (Object.hasOwn(PREVIEW, family) ? PREVIEW[family] : undefined) ?? '1, 2, 3, 4, 5.';
}
