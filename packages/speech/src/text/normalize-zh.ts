/** Chinese text normalization: dates, times, money, percentages, units, numbers, in Chinese words. */
import { chineseCardinal, chineseDigits, chineseNumber } from './numbers.ts';

const UNITS: Record<string, string> = {
  km: '公里',
  m: '米',
  cm: '厘米',
  mm: '毫米',
  kg: '千克',
  g: '克',
  mg: '毫克',
  t: '吨',
  l: '升',
  L: '升',
  ml: '毫升',
  mL: '毫升',
  'km/h': '公里每小时',
  'm/s': '米每秒',
  '°C': '摄氏度',
  '℃': '摄氏度',
  '°F': '华氏度',
  '°': '度',
  KB: '千字节',
  MB: '兆字节',
  GB: '吉字节',
  TB: '太字节',
  Hz: '赫兹',
  kHz: '千赫',
  MHz: '兆赫',
  GHz: '吉赫',
  W: '瓦',
  kW: '千瓦',
  kWh: '千瓦时',
  V: '伏',
  h: '小时',
  min: '分钟',
  s: '秒',
  ms: '毫秒',
};

const CURRENCY_PREFIX: Record<string, string> = {
  '¥': '元',
  '￥': '元',
  $: '美元',
  US$: '美元',
  '€': '欧元',
  '£': '英镑',
  HK$: '港元',
};

const NUM = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;

/** A phone number or code digit by digit (一 as 幺 is left to the reader), its groups apart. */
function phoneDigits(d: string): string {
  return d
    .replace(/^\+/, '加')
    .replace(/[- ]/g, ' ')
    .replace(/\d+/g, (g) => chineseDigits(g));
}

/** 两 replaces 二 before measure words when the number is exactly 2 or ends in 2 thousand/etc. */
function withLiang(words: string, next: string): string {
  if (
    words === '二' &&
    /^[个位只本件条张次天年岁点种台辆口家名万亿千小周米倍份瓶杯碗双对套块遍趟层座栋间头匹棵朵支把公升克吨]/.test(next)
  )
    return '两';
  return words;
}

/** 12.50元 → 十二元五角; ¥3 → 三元. */
function yuan(amount: string, unit: string): string {
  const [int = '0', frac = ''] = amount.replace(/,/g, '').split('.');
  if (unit !== '元') return `${chineseNumber(amount)}${unit}`;
  const jiao = Number(frac[0] ?? '0');
  const fen = Number(frac[1] ?? '0');
  let out = `${chineseCardinal(int || '0')}元`;
  if (jiao) out += `${chineseDigits(String(jiao))}角`;
  if (fen) out += `${jiao ? '' : '零'}${chineseDigits(String(fen))}分`;
  return out;
}

const ADDRESS_SIGNS: Record<string, string> = { '.': '点', '@': ' at ', '/': '斜杠', '-': '杠', _: '下划线', ':': '冒号' };

/** A URL or e-mail address: the scheme left out, its signs said (点, at, 斜杠), digits one by one, letters as written. */
function address(text: string): string {
  return text
    .replace(/^https?:\/\//i, '')
    .replace(/\/$/, '')
    .replace(/[.@/\-_:]/g, (c) => ADDRESS_SIGNS[c]!)
    .replace(/\d/g, (d) => chineseDigits(d))
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** 1/2 → 二分之一. */
function fraction(n: string, d: string): string {
  return `${chineseCardinal(d)}分之${chineseCardinal(n)}`;
}

export function normalizeChinese(input: string): string {
  let t = input;
  // Addresses first, before their dots and digits are read as anything else.
  t = t.replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, (m) => address(m));
  t = t.replace(/(?:https?:\/\/[\x21-\x7e]+[\w/]|www\.[\w-]+(?:\.[\w-]+)+(?:\/[\x21-\x7e]*[\w/])?)/gi, (m) => address(m));
  // Dates: 2024年3月5日, 2024-03-05, 2024/3/5.
  t = t.replace(
    /(\d{4})年(\d{1,2})月(\d{1,2})[日号]/g,
    (_, y: string, m: string, d: string) => `${chineseDigits(y)}年${chineseCardinal(m)}月${chineseCardinal(d)}日`,
  );
  t = t.replace(/(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)/g, (s, y: string, m: string, d: string) =>
    +m >= 1 && +m <= 12 && +d >= 1 && +d <= 31 ? `${chineseDigits(y)}年${chineseCardinal(m)}月${chineseCardinal(d)}日` : s,
  );
  t = t.replace(/(\d{4})年/g, (_, y: string) => `${chineseDigits(y)}年`);
  t = t.replace(/(\d{1,2})月(\d{1,2})[日号]/g, (_, m: string, d: string) => `${chineseCardinal(m)}月${chineseCardinal(d)}日`);
  // Times: 10:30 → 十点三十分, 8:05 → 八点零五分.
  t = t.replace(/(\d{1,2}):(\d{2})(?::(\d{2}))?/g, (s, h: string, m: string, sec?: string) => {
    if (+h > 23 || +m > 59) return s;
    const hour = `${withLiang(chineseCardinal(h), '点')}点`;
    const min = +m === 0 ? '整' : `${+m < 10 ? '零' : ''}${chineseCardinal(m)}分`;
    return hour + min + (sec && +sec ? `${chineseCardinal(sec)}秒` : '');
  });
  // Money.
  t = t.replace(
    new RegExp(String.raw`(HK\$|US\$|[¥￥$€£])\s?(${NUM})(万|亿)?`, 'g'),
    (_, sym: string, amt: string, big?: string) =>
      big ? `${withLiang(chineseNumber(amt), big)}${big}${CURRENCY_PREFIX[sym]}` : yuan(amt, CURRENCY_PREFIX[sym] ?? '元'),
  );
  t = t.replace(new RegExp(String.raw`(${NUM})\s?(元|块)`, 'g'), (_, amt: string, u: string) =>
    u === '元' ? yuan(amt, '元') : `${chineseNumber(amt)}块`,
  );
  // Percent: 50% → 百分之五十.
  t = t.replace(
    new RegExp(String.raw`(-?)(${NUM})\s?[%％]`, 'g'),
    (_, neg: string, n: string) => `${neg ? '负' : ''}百分之${chineseNumber(n)}`,
  );
  // Units.
  const keys = Object.keys(UNITS)
    .sort((a, b) => b.length - a.length)
    .map((u) => u.replace(/[/.]/g, (c) => `\\${c}`));
  t = t.replace(
    new RegExp(String.raw`(-?)(${NUM})\s?(${keys.join('|')})(?![A-Za-z/])`, 'g'),
    // 2L → 两升, 2kg → 两千克; a temperature keeps 二 (二摄氏度).
    (_, neg: string, n: string, u: string) => `${withLiang(chineseNumber(neg + n), UNITS[u]!)}${UNITS[u]}`,
  );
  // Phone numbers and codes are read digit by digit: after 电话/号码/编号, a leading 0, or a mobile number.
  t = t.replace(
    /(电话|手机|号码|编号|单号|尾号|验证码|热线|分机)(\s*[:：是为]?\s*)(\+?\d+(?:[- ]\d+)*)/g,
    (_, w: string, sep: string, d: string) => w + sep + phoneDigits(d),
  );
  t = t.replace(/(?<![\d-])(0\d{2,3})-(\d{7,8})(?![\d-])/g, (_, a: string, b: string) => phoneDigits(`${a}-${b}`));
  t = t.replace(/(?<![\d,.])(0\d{2,}|1[3-9]\d{9})(?![\d,])/g, (d) => chineseDigits(d));
  // Ordinals: 第2 → 第二 (never 两).
  t = t.replace(new RegExp(String.raw`第(${NUM})`, 'g'), (_, n: string) => `第${chineseNumber(n)}`);
  // Fractions: 1/2 → 二分之一.
  t = t.replace(/(?<![\d/])(\d{1,3})\/(\d{1,3})(?![\d/])/g, (m, n: string, d: string) => (+d > 0 ? fraction(n, d) : m));
  // Ranges: 5-10个 → 五到十个; 3~5天 → 三到五天.
  t = t.replace(new RegExp(String.raw`(${NUM})\s?[-~～—]\s?(?=\d)`, 'g'), (_, n: string) => `${chineseNumber(n)}到`);
  // Remaining numbers, with 两 before measure words.
  t = t.replace(new RegExp(String.raw`(-?)(${NUM})(.?)`, 'g'), (_, neg: string, n: string, next: string) => {
    const words = chineseNumber(neg + n);
    return withLiang(words, next) + next;
  });
  return t;
}
