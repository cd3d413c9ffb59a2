/**
 * `npx tsx bench/run.ts --only pronunciation`: the pronunciation test set (fixtures/pronunciation/set.json, names,
 * brands, acronyms, heteronyms and Chinese polyphonic characters, each with a rule and the phonemes expected) through
 * every built-in engine: the share spoken as the rule says.
 *
 * eSpeak NG reports the phonemes it speaks (its phoneme events): each entry's text is planned as a request with the
 * rule (the alias put in, or the phonemes as `[[…]]`), eSpeak speaks the plan's text, and its phonemes are compared
 * with the expected ones (packages/speech/test/support/pronunciation-judge.ts); the same without the rule is the
 * baseline. Flite and GnuSpeech report no phonemes and take none: their phoneme rules fall back (the plan says which),
 * and their alias rules are counted as applied, not judged (the repository has no intelligibility judge).
 */
import { createSpeech, type Speech } from '@polyvox/speech';
import { espeakSynthesize } from '../packages/speech/src/engines/espeak-runtime.ts';
import {
  judgeEntry,
  loadPronunciationSet,
  type PronunciationEntry,
} from '../packages/speech/test/support/pronunciation-judge.ts';
import type { BenchRow } from './stats.js';

const CATEGORIES: PronunciationEntry['category'][] = ['name', 'brand', 'acronym', 'heteronym', 'zh-polyphone'];

const pct = (n: number, of: number) => (of === 0 ? 0 : (100 * n) / of);

/** The phonemes eSpeak NG speaks for an entry's text planned on its voice, with or without the rule. */
async function espeakSpoken(speech: Speech, e: PronunciationEntry, withRule: boolean): Promise<string[]> {
  const plan = speech.prepare({
    text: e.text,
    voiceId: e.voice,
    format: 'pcm',
    checkLanguage: false,
    ...(withRule ? { lexicon: [e.rule] } : {}),
  });
  const out = await espeakSynthesize(plan.text, { voice: plan.voice.variant ?? e.voice, rate: 175, pitch: 50, range: 50 });
  return out.phonemes;
}

async function espeakRows(speech: Speech, set: PronunciationEntry[]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const byCategory = new Map<string, { ok: number; base: number; n: number }>();
  const misses: string[] = [];
  for (const e of set) {
    const ruled = judgeEntry(e, await espeakSpoken(speech, e, true));
    const plain = judgeEntry(e, await espeakSpoken(speech, e, false));
    const c = byCategory.get(e.category) ?? { ok: 0, base: 0, n: 0 };
    c.n++;
    if (ruled.ok) c.ok++;
    else misses.push(`${e.text} (${ruled.got} ≠ ${ruled.expected})`);
    if (plain.ok) c.base++;
    byCategory.set(e.category, c);
  }
  const total = [...byCategory.values()].reduce((a, c) => ({ ok: a.ok + c.ok, base: a.base + c.base, n: a.n + c.n }), {
    ok: 0,
    base: 0,
    n: 0,
  });
  const share = pct(total.ok, total.n);
  rows.push({
    metric: `eSpeak NG: spoken as the rule says, judged by its phonemes (${total.ok}/${total.n})`,
    value: share,
    unit: '%',
    target: '≥ 90',
    pass: share >= 90,
  });
  rows.push({
    metric: `eSpeak NG: the same words without the rules (${total.base}/${total.n})`,
    value: pct(total.base, total.n),
    unit: '%',
  });
  for (const cat of CATEGORIES) {
    const c = byCategory.get(cat);
    if (!c) continue;
    rows.push({
      metric: `eSpeak NG ${cat}: with the rule ${c.ok}/${c.n}, without ${c.base}/${c.n}`,
      value: pct(c.ok, c.n),
      unit: '%',
    });
  }
  if (misses.length) console.log(`eSpeak NG misses: ${misses.join('; ')}`);
  return rows;
}

/** Flite and GnuSpeech: which rules reach the engine as the rule says, and which fall back. English entries only. */
function fallbackRows(speech: Speech, label: string, voiceId: string, set: PronunciationEntry[]): BenchRow[] {
  const english = set.filter((e) => e.expected !== undefined);
  const phonemeRules = english.filter((e) => e.rule.type === 'phoneme');
  let fellBack = 0;
  let aliasApplied = 0;
  for (const e of english) {
    const plan = speech.prepare({ text: e.text, voiceId, format: 'pcm', checkLanguage: false, lexicon: [e.rule] });
    if (e.rule.type === 'phoneme') {
      if (plan.pronunciationFallbacks.includes(e.text)) fellBack++;
    } else if (e.rule.alias && plan.text.includes(e.rule.alias)) aliasApplied++;
  }
  const aliases = english.length - phonemeRules.length;
  return [
    {
      metric: `${label}: phoneme rules that fall back (spoken as written; x-pronunciation-fallback) ${fellBack}/${phonemeRules.length}`,
      value: pct(fellBack, phonemeRules.length),
      unit: '%',
    },
    {
      metric: `${label}: alias rules given to the engine (not judged: no phoneme output) ${aliasApplied}/${aliases}`,
      value: pct(aliasApplied, aliases),
      unit: '%',
    },
  ];
}

export async function pronunciationRows(): Promise<BenchRow[]> {
  const set = loadPronunciationSet();
  const speech = await createSpeech({ cache: false });
  try {
    const rows = await espeakRows(speech, set);
    const gnuspeech = speech.listVoices({ engine: 'gnuspeech' })[0]?.id;
    for (const [label, voiceId] of [
      ['Flite (slt)', 'flite:slt'],
      ['GnuSpeech', gnuspeech],
    ] as const) {
      if (voiceId && speech.getVoice(voiceId)) rows.push(...fallbackRows(speech, label, voiceId, set));
    }
    rows.unshift({
      metric: `entries in the set (${CATEGORIES.map((c) => `${c} ${set.filter((e) => e.category === c).length}`).join(', ')})`,
      value: set.length,
      unit: 'entries',
    });
    return rows;
  } finally {
    await speech.close();
  }
}
