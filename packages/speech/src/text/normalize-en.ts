/** English text normalization: money, dates, times, units, percentages, ordinals, numbers. */
import { englishCardinal, englishNumber, englishOrdinal, englishYear } from './numbers.ts';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const CURRENCIES: Record<string, [string, string, string, string]> = {
  $: ['dollar', 'dollars', 'cent', 'cents'],
  US$: ['dollar', 'dollars', 'cent', 'cents'],
  '€': ['euro', 'euros', 'cent', 'cents'],
  '£': ['pound', 'pounds', 'penny', 'pence'],
  '¥': ['yuan', 'yuan', 'fen', 'fen'],
  '￥': ['yuan', 'yuan', 'fen', 'fen'],
  '₹': ['rupee', 'rupees', 'paisa', 'paise'],
};

const UNITS: Record<string, [string, string]> = {
  km: ['kilometer', 'kilometers'],
  m: ['meter', 'meters'],
  cm: ['centimeter', 'centimeters'],
  mm: ['millimeter', 'millimeters'],
  kg: ['kilogram', 'kilograms'],
  g: ['gram', 'grams'],
  mg: ['milligram', 'milligrams'],
  lb: ['pound', 'pounds'],
  lbs: ['pound', 'pounds'],
  l: ['liter', 'liters'],
  L: ['liter', 'liters'],
  ml: ['milliliter', 'milliliters'],
  mL: ['milliliter', 'milliliters'],
  'km/h': ['kilometer per hour', 'kilometers per hour'],
  mph: ['mile per hour', 'miles per hour'],
  'm/s': ['meter per second', 'meters per second'],
  '°C': ['degree Celsius', 'degrees Celsius'],
  '℃': ['degree Celsius', 'degrees Celsius'],
  '°F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  s: ['second', 'seconds'],
  ms: ['millisecond', 'milliseconds'],
  min: ['minute', 'minutes'],
  h: ['hour', 'hours'],
  hrs: ['hours', 'hours'],
  KB: ['kilobyte', 'kilobytes'],
  MB: ['megabyte', 'megabytes'],
  GB: ['gigabyte', 'gigabytes'],
  TB: ['terabyte', 'terabytes'],
  Hz: ['hertz', 'hertz'],
  kHz: ['kilohertz', 'kilohertz'],
  MHz: ['megahertz', 'megahertz'],
  GHz: ['gigahertz', 'gigahertz'],
  W: ['watt', 'watts'],
  kW: ['kilowatt', 'kilowatts'],
  kWh: ['kilowatt hour', 'kilowatt hours'],
  V: ['volt', 'volts'],
  mi: ['mile', 'miles'],
  ft: ['foot', 'feet'],
  in: ['inch', 'inches'],
  oz: ['ounce', 'ounces'],
};

const ATTACHED_ONLY = new Set(['m', 's', 'h', 'g', 'in', 'l', 'L', 'W', 'V', 'mi', 'ft', 'oz', 'lb']);

const ABBREVIATIONS: [RegExp, string][] = [
  [/\bMr\./g, 'Mister'],
  [/\bMrs\./g, 'Missus'],
  [/\bMs\./g, 'Miz'],
  [/\bDr\./g, 'Doctor'],
  [/\bProf\./g, 'Professor'],
  [/\bSt\.(?= [A-Z])/g, 'Saint'],
  [/\be\.g\./g, 'for example'],
  [/\bi\.e\./g, 'that is'],
  [/\betc\./g, 'et cetera'],
  [/\bvs\.?(?= )/g, 'versus'],
];

const NUM = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;

function money(symbol: string, amount: string, scale?: string): string {
  const names = CURRENCIES[symbol] ?? CURRENCIES.$!;
  const [int = '0', frac = ''] = amount.replace(/,/g, '').split('.');
  if (scale) return `${englishNumber(amount)} ${scale} ${names[1]}`;
  const whole = BigInt(int || '0');
  const unit = `${englishCardinal(int || '0')} ${whole === 1n ? names[0] : names[1]}`;
  const cents = frac ? Number(frac.padEnd(2, '0').slice(0, 2)) : 0;
  if (!cents) return unit;
  const sub = `${englishCardinal(String(cents))} ${cents === 1 ? names[2] : names[3]}`;
  return whole === 0n ? sub : `${unit} and ${sub}`;
}

function date(y: number, mo: number, d: number): string | undefined {
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return undefined;
  return `${MONTHS[mo - 1]} ${englishOrdinal(String(d))}, ${englishYear(y)}`;
}

function time(h: number, m: number, suffix?: string): string {
  const hour = englishCardinal(String(h));
  const mins =
    m === 0 ? (suffix ? '' : " o'clock") : m < 10 ? ` oh ${englishCardinal(String(m))}` : ` ${englishCardinal(String(m))}`;
  const ampm = suffix ? ` ${suffix.replace(/\./g, '').toLowerCase().split('').join(' ')}` : '';
  return `${hour}${mins}${ampm}`;
}

export function normalizeEnglish(input: string): string {
  let t = input;
  for (const [re, word] of ABBREVIATIONS) t = t.replace(re, word);
  // Money: $1,234.56, €5, £3.20, $2.5 million.
  t = t.replace(
    new RegExp(String.raw`(US\$|[$€£¥￥₹])\s?(${NUM})(?:\s?(thousand|million|billion|trillion|[kKmMbB])\b)?`, 'g'),
    (_, sym: string, amt: string, sc?: string) => {
      const scale = sc
        ? (({ k: 'thousand', m: 'million', b: 'billion' } as Record<string, string>)[sc.toLowerCase()] ?? sc)
        : undefined;
      return money(sym, amt, scale);
    },
  );
  // ISO dates 2024-03-05 and US dates 03/05/2024.
  t = t.replace(/\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, (m, y: string, mo: string, d: string) => date(+y, +mo, +d) ?? m);
  t = t.replace(/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, (m, mo: string, d: string, y: string) => date(+y, +mo, +d) ?? m);
  // Month names with a day: March 5 → March fifth.
  t = t.replace(
    new RegExp(`\\b(${MONTHS.join('|')}) (\\d{1,2})(st|nd|rd|th)?\\b`, 'g'),
    (_, mo: string, d: string) => `${mo} ${englishOrdinal(d)}`,
  );
  // Times 10:30, 7:05 pm.
  t = t.replace(/\b(\d{1,2}):(\d{2})(?:\s?([ap]\.?m\.?))?(?=\W|$)/gi, (m, h: string, mi: string, sfx?: string) =>
    +h < 24 && +mi < 60 ? time(+h, +mi, sfx) : m,
  );
  // Percent.
  t = t.replace(new RegExp(`(-?)(${NUM})\\s?%`, 'g'), (_, neg: string, n: string) => `${englishNumber(neg + n)} percent`);
  // Units after a number; one-letter and word-like units only when attached (5m, not "5 in the box").
  const escape = (u: string): string => u.replace(/[/.]/g, (c) => `\\${c}`);
  const keys = Object.keys(UNITS).sort((a, b) => b.length - a.length);
  const spaced = keys
    .filter((u) => !ATTACHED_ONLY.has(u))
    .map(escape)
    .join('|');
  const unit = (_: string, neg: string, n: string, u: string): string => {
    const names = UNITS[u]!;
    return `${englishNumber(neg + n)} ${Number(n.replace(/,/g, '')) === 1 ? names[0] : names[1]}`;
  };
  t = t.replace(new RegExp(`(-?)(${NUM})(${keys.map(escape).join('|')})(?![\\w/])`, 'g'), unit);
  t = t.replace(new RegExp(`(-?)(${NUM})\\s(${spaced})(?![\\w/])`, 'g'), unit);
  // Ordinals 1st 2nd 23rd.
  t = t.replace(/\b(\d+)(st|nd|rd|th)\b/g, (_, n: string) => englishOrdinal(n));
  // Standalone years in context: "in 1999", "since 2010".
  t = t.replace(
    /\b(in|since|by|from|until|of|year)\s(1[1-9]\d\d|20\d\d)\b/gi,
    (_, w: string, y: string) => `${w} ${englishYear(+y)}`,
  );
  // Remaining numbers.
  t = t.replace(
    new RegExp(`(^|[^\\w.])(-?)(${NUM})(?![\\w])`, 'g'),
    (_, pre: string, neg: string, n: string) => `${pre}${englishNumber(neg + n)}`,
  );
  t = t
    .replace(/&/g, ' and ')
    .replace(/\s+\+\s+/g, ' plus ')
    .replace(/\s=\s/g, ' equals ');
  return t.replace(/[ \t]{2,}/g, ' ');
}
