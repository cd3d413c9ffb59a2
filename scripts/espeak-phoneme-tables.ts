/**
 * Writes `packages/speech/src/text/espeak-phoneme-tables.ts`: for each language below, the IPA of every phoneme
 * mnemonic its eSpeak NG phoneme table (and the tables it inherits) holds, as eSpeak NG itself names what it spoke.
 *
 * Each mnemonic is spoken alone (`[[m]]`) on the language's voice and its phoneme events read: a mnemonic that eSpeak
 * speaks as exactly one phoneme gives the IPA → mnemonic pair (the language's own table first, so its own sounds win
 * over the inherited ones of the same IPA). Nothing is guessed: a pair exists because eSpeak NG said it.
 *
 *   npx tsx scripts/espeak-phoneme-tables.ts && npx prettier --write packages/speech/src/text/espeak-phoneme-tables.ts
 */
import { writeFileSync } from 'node:fs';
import { espeakLanguageTags } from '../packages/speech/src/catalogue/languages.ts';
import { espeakSynthesize, getEspeak } from '../packages/speech/src/engines/espeak-runtime.ts';
import { ipaKey } from '../packages/speech/src/text/ipa-key.ts';

/** The languages with the most voices (eSpeak NG's widely used ones, the sherpa-onnx catalogue's), and a few more. */
export const LANGUAGES = [
  'roa/fr',
  'gmw/de',
  'roa/es',
  'roa/es-419',
  'roa/it',
  'roa/pt',
  'roa/pt-BR',
  'gmw/nl',
  'zle/ru',
  'zlw/pl',
  'sit/cmn',
  'sit/yue',
  'jpx/ja',
  'ko',
  'inc/hi',
  'sem/ar',
  'aav/vi',
  'trk/tr',
  'gmq/sv',
  'zlw/cs',
  'zle/uk',
  'roa/ca',
  'grk/el',
  'urj/fi',
];

const DATA = '/usr/share/espeak-ng-data';

interface Table {
  name: string;
  parent: number;
  /** Each phoneme's mnemonic and whether it is a vowel (its type, 2 in eSpeak NG's \`phoneme.h\`). */
  phonemes: { mnemonic: string; vowel: boolean }[];
  /** Tone phonemes (type 1, named by their contour's digits: Mandarin's \`55\`, \`214\` …). */
  tones: string[];
}

/** eSpeak NG's phoneme types that are sounds: vowel, liquid, stops, fricatives, nasal (not pauses, stress, virtual). */
const SOUND_TYPES = new Set([2, 3, 4, 5, 6, 7, 8]);

/** eSpeak NG's compiled phoneme tables (`phontab`: per table its count, parent, name, then 16 bytes a phoneme). */
function readTables(buf: Uint8Array): Table[] {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const tables: Table[] = [];
  let o = 4;
  for (let t = 0, n = dv.getUint32(0, true); t < n; t++) {
    const count = buf[o]!;
    // \`includes\` is the inherited table's index plus one, 0 for none (eSpeak NG's \`SetUpPhonemeTable\`).
    const parent = buf[o + 1]! - 1;
    const name = new TextDecoder().decode(buf.subarray(o + 4, o + 36)).replace(/\0[\s\S]*$/, '');
    o += 36;
    const phonemes: Table['phonemes'] = [];
    const tones: string[] = [];
    for (let p = 0; p < count; p++, o += 16) {
      const m = dv.getUint32(o, true);
      let s = '';
      for (let k = 0; k < 4; k++) if ((m >>> (8 * k)) & 255) s += String.fromCharCode((m >>> (8 * k)) & 255);
      const type = buf[o + 11]!;
      if (SOUND_TYPES.has(type)) phonemes.push({ mnemonic: s, vowel: type === 2 });
      else if (type === 1 && /^[1-5]{2,3}$/.test(s)) tones.push(s);
    }
    tables.push({ name, parent, phonemes, tones });
  }
  return tables;
}

/** The phoneme table a language file names (`phonemes`), else its first language's code before any `-`. */
function tableName(langFile: string): string {
  const named = /^phonemes\s+(\S+)/m.exec(langFile);
  if (named) return named[1]!;
  return /^language\s+(\S+)/m.exec(langFile)![1]!.split('-')[0]!;
}

const { module } = await getEspeak();
const FS = module.FS;
const tables = readTables(FS.readFile(`${DATA}/phontab`) as Uint8Array);
const out: Record<string, string> = {};
const tones: Record<string, string[]> = {};
const tags: Record<string, string> = {};
for (const identifier of LANGUAGES) {
  const file = new TextDecoder('latin1').decode(FS.readFile(`${DATA}/lang/${identifier}`) as Uint8Array);
  const name = tableName(file);
  let index = tables.findIndex((t) => t.name === name);
  if (index < 0) throw new Error(`${identifier}: no phoneme table ${name}`);
  for (const tag of [identifier, ...espeakLanguageTags(identifier)].map((t) => t.toLowerCase()))
    if (!Object.hasOwn(tags, tag)) tags[tag] = name;
  if (Object.hasOwn(out, name)) continue;
  // The language's own table first, then the ones it inherits (table 0 holds pauses and stress marks only).
  const order: Table['phonemes'] = [];
  const tableTones: string[] = [];
  for (;;) {
    for (const p of tables[index]!.phonemes) if (!order.some((q) => q.mnemonic === p.mnemonic)) order.push(p);
    for (const m of tables[index]!.tones) if (!tableTones.includes(m)) tableTones.push(m);
    const parent = tables[index]!.parent;
    if (parent <= 0) break;
    index = parent;
  }
  const say = async (phonemes: string) =>
    (await espeakSynthesize(`[[${phonemes}]]`, { voice: identifier, rate: 175, pitch: 50, range: 50 })).phonemes
      .map(ipaKey)
      .filter(Boolean);
  const found: { ipa: string; mnemonic: string; steady: boolean; rank: number }[] = [];
  for (const [rank, { mnemonic: m, vowel }] of order.entries()) {
    if (!/^[\x21-\x7e]+$/.test(m) || /[ |]/.test(m) || /^[_#%=|:',-]/.test(m) || /[[\]]/.test(m)) continue;
    // Heard first where a sound changes least (a consonant before a stressed vowel, a vowel stressed alone), then in
    // a second place (between vowels, between consonants): a sound eSpeak NG names the same in both is preferred.
    const frames: [string, number, number][] = vowel
      ? [
          [`'${m}`, 0, 1],
          [`t'${m}t`, 1, 3],
        ]
      : [
          [`${m}'a`, 0, 2],
          [`'a${m}a`, 1, 3],
        ];
    const heard: string[] = [];
    for (const [frame, at, count] of frames) {
      const said = await say(frame);
      heard.push(said.length === count ? said[at]! : '');
    }
    const ipa = heard[0]!;
    // A phoneme eSpeak NG gives no IPA for is named by its mnemonic, which no rule writes.
    if (!ipa || /[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(ipa)) continue;
    // A vowel is stressed in both places: one named otherwise in the second is a sound of its neighbours. One named
    // with a glide first (Russian's I3, `ja`) is left to the glide and vowel the table has apart; syllabic consonants
    // (`n̩`) stay.
    if (vowel && (heard[1] !== ipa || !/^(?:[aeiouyæøœɐɑɒɔəɘɛɜɞɤɨɪɯɵʉʊʌʏ]|.\u0329$)/.test(ipa))) continue;
    found.push({ ipa, mnemonic: m, steady: heard[1] === ipa, rank });
  }
  // For one IPA sound: a steady mnemonic before one that changes with its place, a plain one (fewest marks) before
  // one with marks, the language's own before an inherited one.
  const marks = (m: string) => m.replace(/[A-Za-z0-9]/g, '').length;
  found.sort((x, y) => Number(y.steady) - Number(x.steady) || marks(x.mnemonic) - marks(y.mnemonic) || x.rank - y.rank);
  const pairs = new Map<string, string>();
  for (const f of found) if (!pairs.has(f.ipa)) pairs.set(f.ipa, f.mnemonic);
  out[name] = [...pairs].map(([ipa, m]) => `${ipa} ${m}`).join('|');
  if (tableTones.length) tones[name] = tableTones.sort((x, y) => Number(x) - Number(y));
  console.log(identifier, name, pairs.size);
}

const source = `/**
 * Generated by \`scripts/espeak-phoneme-tables.ts\` from eSpeak NG's own phoneme tables and its own phoneme output:
 * per phoneme table, each IPA sound (as \`ipaKey\` writes it) and the mnemonic eSpeak NG speaks it with (\`ipa mnemonic\`,
 * joined by \`|\`). Do not edit.
 */
export const ESPEAK_PHONEME_TABLES: Readonly<Record<string, string>> = ${JSON.stringify(out)};

/** The tone phonemes of the tables that have them, by their contour's digits (5 high … 1 low). */
export const ESPEAK_TONES: Readonly<Record<string, readonly string[]>> = ${JSON.stringify(tones)};

/** The phoneme table of a language tag or eSpeak NG identifier (lower case). */
export const ESPEAK_TABLE_OF: Readonly<Record<string, string>> = ${JSON.stringify(tags)};
`;
writeFileSync(new URL('../packages/speech/src/text/espeak-phoneme-tables.ts', import.meta.url), source);
