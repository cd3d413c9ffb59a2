/** Numbers as words, in English and in Chinese. */

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion', 'quadrillion'];

function below1000(n: number): string {
  const parts: string[] = [];
  const h = Math.floor(n / 100);
  const r = n % 100;
  if (h) parts.push(`${ONES[h]} hundred`);
  if (r) {
    if (r < 20) parts.push(ONES[r]!);
    else parts.push(TENS[Math.floor(r / 10)]! + (r % 10 ? `-${ONES[r % 10]}` : ''));
  }
  return parts.join(' ');
}

/** Cardinal number in English words; integers of any size up to 10^18 (digit by digit above). */
export function englishCardinal(digits: string): string {
  const clean = digits.replace(/^0+(?=\d)/, '');
  if (clean.length > 18)
    return clean
      .split('')
      .map((d) => ONES[Number(d)])
      .join(' ');
  let n = BigInt(clean);
  if (n === 0n) return 'zero';
  const groups: string[] = [];
  let scale = 0;
  while (n > 0n) {
    const g = Number(n % 1000n);
    if (g) groups.unshift(below1000(g) + (SCALES[scale] ? ` ${SCALES[scale]}` : ''));
    n /= 1000n;
    scale++;
  }
  return groups.join(' ');
}

export function englishNumber(text: string): string {
  const negative = text.startsWith('-') || text.startsWith('−');
  const body = text.replace(/^[-−+]/, '').replace(/,/g, '');
  const [int = '0', frac] = body.split('.');
  let out = englishCardinal(int || '0');
  if (frac !== undefined && frac.length)
    out +=
      ' point ' +
      frac
        .split('')
        .map((d) => ONES[Number(d)])
        .join(' ');
  return (negative ? 'minus ' : '') + out;
}

const ORDINAL_IRREGULAR: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

export function englishOrdinal(digits: string): string {
  const words = englishCardinal(digits);
  const m = /([a-z]+)$/.exec(words)!;
  const last = m[1]!;
  const ord = ORDINAL_IRREGULAR[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return words.slice(0, m.index) + ord;
}

/** Years read in pairs: 1999 → nineteen ninety-nine, 2024 → twenty twenty-four, 2005 → two thousand five. */
export function englishYear(y: number): string {
  if (y >= 2000 && y < 2010) return englishCardinal(String(y));
  if (y >= 1100 && y < 2100 && y % 100 !== 0) {
    const hi = Math.floor(y / 100);
    const lo = y % 100;
    return `${englishCardinal(String(hi))} ${lo < 10 ? `oh ${ONES[lo]}` : englishCardinal(String(lo))}`;
  }
  if (y >= 1100 && y < 2100) return `${englishCardinal(String(y / 100))} hundred`;
  return englishCardinal(String(y));
}

const ZH_DIGITS = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
const ZH_UNITS = ['', '十', '百', '千'];
const ZH_BIG = ['', '万', '亿', '万亿'];

function zhBelow10000(n: number): string {
  let out = '';
  let zero = false;
  for (let i = 3; i >= 0; i--) {
    const d = Math.floor(n / Math.pow(10, i)) % 10;
    if (d === 0) {
      if (out) zero = true;
      continue;
    }
    if (zero) out += '零';
    zero = false;
    out += ZH_DIGITS[d]! + ZH_UNITS[i]!;
  }
  return out;
}

/** Cardinal number in Chinese: 10010 → 一万零一十 (read as 一万零一十), 12 → 十二. */
export function chineseCardinal(digits: string): string {
  const clean = digits.replace(/^0+(?=\d)/, '');
  if (clean.length > 16) return chineseDigits(clean);
  let n = BigInt(clean);
  if (n === 0n) return '零';
  const groups: number[] = [];
  while (n > 0n) {
    groups.push(Number(n % 10000n));
    n /= 10000n;
  }
  let out = '';
  let needZero = false;
  for (let i = groups.length - 1; i >= 0; i--) {
    const g = groups[i]!;
    if (g === 0) {
      needZero = out.length > 0;
      continue;
    }
    if (out && (needZero || g < 1000)) out += '零';
    out += zhBelow10000(g) + ZH_BIG[i]!;
    needZero = false;
  }
  // 一十二 → 十二 at the start; 二千, 二万, 二亿 → 两千, 两万, 两亿 at the start (as they are said).
  return out.replace(/^一十/, '十').replace(/^二(?=[千万亿])/, '两');
}

export function chineseDigits(digits: string): string {
  return digits
    .split('')
    .map((d) => ZH_DIGITS[Number(d)] ?? d)
    .join('');
}

export function chineseNumber(text: string): string {
  const negative = text.startsWith('-') || text.startsWith('−');
  const body = text.replace(/^[-−+]/, '').replace(/,/g, '');
  const [int = '0', frac] = body.split('.');
  let out = chineseCardinal(int || '0');
  if (frac !== undefined && frac.length) out += '点' + chineseDigits(frac);
  return (negative ? '负' : '') + out;
}
