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

const ATTACHED_ONLY = new Set(['m', 's', 'h', 'in', 'l', 'L', 'W', 'V']);

const ABBREVIATIONS: [RegExp, string][] = [
  [/\bMr\./g, 'Mister'],
  [/\bMrs\./g, 'Missus'],
  [/\bMs\./g, 'Miz'],
  [/\bDr\./g, 'Doctor'],
  [/\bProf\./g, 'Professor'],
  [/\bSt\.(?= [A-Z])/g, 'Saint'],
  // After a name (Main St., Oak Ave.): the street.
  [/(?<=\b[A-Z][a-z]+ )St\./g, 'Street'],
  [/(?<=\b[A-Z][a-z]+ )Ave\./g, 'Avenue'],
  [/(?<=\b[A-Z][a-z]+ )Rd\./g, 'Road'],
  [/(?<=\b[A-Z][a-z]+ )Blvd\./g, 'Boulevard'],
  [/\bMt\.(?= [A-Z])/g, 'Mount'],
  [/\bJr\./g, 'Junior'],
  [/\bSr\./g, 'Senior'],
  [/\bInc\./g, 'Incorporated'],
  [/\bLtd\./g, 'Limited'],
  [/\bCorp\./g, 'Corporation'],
  [/\bDept\./g, 'Department'],
  [/\bGov\./g, 'Governor'],
  [/\bSen\./g, 'Senator'],
  [/\bRep\.(?= [A-Z])/g, 'Representative'],
  [/\bGen\.(?= [A-Z])/g, 'General'],
  [/\bCapt\.(?= [A-Z])/g, 'Captain'],
  [/\bLt\.(?= [A-Z])/g, 'Lieutenant'],
  [/\bapprox\./gi, 'approximately'],
  [/\b[Nn]o\.(?= ?\d)/g, 'number'],
  [/\b[Nn]os\.(?= ?\d)/g, 'numbers'],
  [/\be\.g\./g, 'for example'],
  [/\bi\.e\./g, 'that is'],
  [/\betc\./g, 'et cetera'],
  [/\bvs\.?(?= )/g, 'versus'],
  [/\bMon\.(?= |$)/g, 'Monday'],
  [/\bTue\.(?= |$)/g, 'Tuesday'],
  [/\bTues\.(?= |$)/g, 'Tuesday'],
  [/\bWed\.(?= |$)/g, 'Wednesday'],
  [/\bThu\.(?= |$)/g, 'Thursday'],
  [/\bThurs\.(?= |$)/g, 'Thursday'],
  [/\bFri\.(?= |$)/g, 'Friday'],
  [/\bSat\.(?= |$)/g, 'Saturday'],
  [/\bSun\.(?= |$)/g, 'Sunday'],
];

/** Jan. 5, Feb 14: a month's short name before a day. */
const MONTH_SHORT: Record<string, string> = {
  Jan: 'January',
  Feb: 'February',
  Mar: 'March',
  Apr: 'April',
  Jun: 'June',
  Jul: 'July',
  Aug: 'August',
  Sep: 'September',
  Sept: 'September',
  Oct: 'October',
  Nov: 'November',
  Dec: 'December',
};

const LETTER_NAMES: Record<string, string> = { '.': 'dot', '@': 'at', '/': 'slash', '-': 'dash', _: 'underscore', ':': 'colon' };

/**
 * A URL or e-mail address as a person reads it: the scheme left out (`https://`), `www` spelled, dots, slashes, `@`
 * and dashes said; a word of letters is read as a word, a short run of capitals or a run with digits letter by letter.
 */
function address(text: string): string {
  const body = text.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  const parts = body.split(/([.@/\-_:])/).filter((p) => p !== '');
  return parts
    .map((p) => {
      if (LETTER_NAMES[p]) return LETTER_NAMES[p];
      if (/^www$/i.test(p)) return 'w w w';
      if (/^\d+$/.test(p))
        return p
          .split('')
          .map((d) => englishCardinal(d))
          .join(' ');
      if (/\d/.test(p) || /^[A-Z]{2,4}$/.test(p))
        return p
          .split('')
          .map((ch) => (/\d/.test(ch) ? englishCardinal(ch) : ch))
          .join(' ');
      return p;
    })
    .join(' ');
}

/** A phone number's digits one by one, its groups apart: 555-123-4567 → five five five, one two three, four five six seven. */
function phone(text: string): string {
  const plus = text.trim().startsWith('+');
  const groups = text.match(/\d+/g) ?? [];
  const spoken = groups.map((g) =>
    g
      .split('')
      .map((d) => englishCardinal(d))
      .join(' '),
  );
  return (plus ? 'plus ' : '') + spoken.join(', ');
}

const FRACTIONS: Record<number, [string, string]> = { 2: ['half', 'halves'], 4: ['quarter', 'quarters'] };

/** 1/2 → one half, 3/4 → three quarters, 2/3 → two thirds. */
function fraction(n: number, d: number): string {
  const [one, many] = FRACTIONS[d] ?? [englishOrdinal(String(d)), `${englishOrdinal(String(d))}s`];
  return `${englishCardinal(String(n))} ${n === 1 ? one : many}`;
}

/** The 1990s → the nineteen nineties; the 2000s → the two thousands. */
function decade(y: number): string {
  const words = englishYear(y);
  if (words.endsWith('y')) return `${words.slice(0, -1)}ies`;
  return `${words}s`;
}

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

/** The full stop of "p.m." that also ends its sentence (the end of the text or a capital follows) is kept. */
function keptStop(dot: string | undefined, all: string, after: number): string {
  return dot && /^(\s+[A-Z]|\s*$)/.test(all.slice(after)) ? '.' : '';
}

export function normalizeEnglish(input: string): string {
  let t = input;
  // Addresses first, before their dots and digits are read as anything else.
  t = t.replace(/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g, (m) => address(m));
  t = t.replace(/\b(?:https?:\/\/[^\s<>"]+[^\s<>".,;:!?)]|www\.[\w-]+(?:\.[\w-]+)+(?:\/[^\s<>"]*[^\s<>".,;:!?)])?)/gi, (m) =>
    address(m),
  );
  for (const [re, word] of ABBREVIATIONS) t = t.replace(re, word);
  // Phone numbers: (555) 123-4567, 555-123-4567, +1 555 123 4567, +44 20 7946 0958.
  t = t.replace(/(?<![\w.])(?:\+\d{1,3}[ -]?)?(?:\(\d{2,4}\)[ -]?|\d{3}[ -])\d{3,4}[ -]\d{4}(?![\w-])/g, (m) => phone(m));
  t = t.replace(/(?<![\w.])\+\d{1,3}(?: \d{2,4}){2,4}(?![\w-])/g, (m) => phone(m));
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
  // Dates: ISO 2024-03-05; slashed 03/05/2024 month first (the US way) unless the first number cannot be a month
  // (25/12/2024: day first).
  t = t.replace(/\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, (m, y: string, mo: string, d: string) => date(+y, +mo, +d) ?? m);
  t = t.replace(/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, (m, a: string, b: string, y: string) =>
    +a > 12 ? (date(+y, +b, +a) ?? m) : (date(+y, +a, +b) ?? m),
  );
  // Short month names before a day: Jan. 5, Sept 30.
  t = t.replace(
    new RegExp(`\\b(${Object.keys(MONTH_SHORT).join('|')})\\.? (?=\\d{1,2}(?:st|nd|rd|th)?\\b)`, 'g'),
    (_, mo: string) => `${MONTH_SHORT[mo]} `,
  );
  // Month names with a day (and a year): March 5 → March fifth; March 5, 2024 → March fifth, twenty twenty-four.
  t = t.replace(
    new RegExp(`\\b(${MONTHS.join('|')}) (\\d{1,2})(st|nd|rd|th)?(?:, (\\d{4}))?\\b`, 'g'),
    (_, mo: string, d: string, _sfx?: string, y?: string) => `${mo} ${englishOrdinal(d)}${y ? `, ${englishYear(+y)}` : ''}`,
  );
  // A month and a year: March 2024.
  t = t.replace(
    new RegExp(`\\b(${MONTHS.join('|')}) (\\d{4})\\b`, 'g'),
    (_, mo: string, y: string) => `${mo} ${englishYear(+y)}`,
  );
  // Decades: the 1990s, the '90s.
  t = t.replace(/\b(1[1-9]\d0|20\d0)'?s\b/g, (_, y: string) => decade(+y));
  t = t.replace(/(^|\s)'([1-9]0)s\b/g, (_, pre: string, y: string) => `${pre}${decade(1900 + +y).replace(/^nineteen /, '')}`);
  // Hours with am/pm alone: 5 pm, 11 a.m.
  t = t.replace(
    /(?<![:\d])\b(\d{1,2})\s?([ap])\.?m\b(\.?)/gi,
    (m, h: string, ap: string, dot: string, at: number, all: string) =>
      +h >= 1 && +h <= 12 ? `${englishCardinal(h)} ${ap.toLowerCase()} m${keptStop(dot, all, at + m.length)}` : m,
  );
  // Times 10:30, 7:05 pm.
  t = t.replace(
    /\b(\d{1,2}):(\d{2})(?:\s?([ap]\.?m\b(\.?)))?(?=\W|$)/gi,
    (m, h: string, mi: string, sfx: string | undefined, dot: string | undefined, at: number, all: string) =>
      +h < 24 && +mi < 60 ? time(+h, +mi, sfx) + keptStop(dot, all, at + m.length) : m,
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
  // Fractions: 1/2, 3/4 (a date's slashes are read above); 24/7.
  t = t.replace(/\b24\/7\b/g, 'twenty-four seven');
  t = t.replace(/(?<![\w/.])(\d{1,2})\/(\d{1,2})(?![\w/])/g, (m, n: string, d: string) =>
    +d >= 2 && +d <= 16 && +n >= 1 ? fraction(+n, +d) : m,
  );
  // Standalone years in context: "in 1999", "since 2010", "in 2024".
  t = t.replace(
    /\b(in|since|by|from|until|of|year|before|after|during|circa|around|to|through)\s(1[1-9]\d\d|20\d\d)\b/gi,
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
