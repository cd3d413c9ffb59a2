/**
 * `npx tsx bench/run.ts --only pronunciation`: the pronunciation test set (fixtures/pronunciation/set.json, names,
 * brands, acronyms, heteronyms, Chinese polyphonic characters and words of other languages on their own eSpeak NG
 * voices, each with a rule and the phonemes expected) through every built-in engine: the share spoken as the rule says.
 *
 * eSpeak NG reports the phonemes it speaks (its phoneme events): each entry's text is planned as a request with the
 * rule (the alias put in, or the phonemes as `[[…]]`), eSpeak speaks the plan's text, and its phonemes are compared
 * with the expected ones (packages/speech/test/support/pronunciation-judge.ts); the same without the rule is the
 * baseline. Flite and GnuSpeech take phoneme rules in their own phone sets and report the phones they speak (Flite's
 * `-ps`, GnuSpeech's postures): judged the same way, the expected IPA written in their phones by the rules' own tables.
 */
import { createSpeech, type Speech } from '@polyvox/speech';
import { espeakSynthesize, FliteEngine, GnuSpeechEngine } from '@polyvox/speech/measure';
import {
  judgeEnginePhones,
  isEnglishEntry,
  judgeEntry,
  loadPronunciationSet,
  type PronunciationEntry,
} from '../packages/speech/test/support/pronunciation-judge.ts';
import type { BenchRow } from './stats.js';

const CATEGORIES: PronunciationEntry['category'][] = ['name', 'brand', 'acronym', 'heteronym', 'zh-polyphone', 'other-language'];

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

/** An engine that reports the phones it speaks (Flite's `-ps`, GnuSpeech's postures). */
interface PhoneEngine {
  phonesOf(text: string, variant: string): Promise<string[]>;
}

/**
 * Flite and GnuSpeech, English entries: each planned with its rule on the engine's voice (a phoneme rule in the
 * engine's own phones, an alias as its words), spoken, and the engine's own phones judged against the expected ones
 * (`judgeEnginePhones`); the same without the rule is the baseline. Rules that fall back are counted.
 */
async function engineRows(
  speech: Speech,
  label: string,
  kind: 'flite' | 'gnuspeech',
  engine: PhoneEngine,
  voiceId: string,
  set: PronunciationEntry[],
): Promise<BenchRow[]> {
  const english = set.filter(isEnglishEntry);
  const variant = speech.getVoice(voiceId)!.variant;
  let phonemeRules = 0;
  let fellBack = 0;
  let aliasApplied = 0;
  let judged = 0;
  let ok = 0;
  let base = 0;
  /** Per kind of rule: judged, and spoken as the rule says. */
  const byType = new Map<string, { n: number; ok: number }>();
  const misses: string[] = [];
  const spoken = async (withRule: boolean, e: PronunciationEntry) => {
    const plan = speech.prepare({
      text: e.text,
      voiceId,
      format: 'pcm',
      checkLanguage: false,
      ...(withRule ? { lexicon: [e.rule] } : {}),
    });
    return { plan, phones: await engine.phonesOf(plan.text, variant) };
  };
  for (const e of english) {
    const ruled = await spoken(true, e);
    if (e.rule.type === 'phoneme') {
      phonemeRules++;
      if (ruled.plan.pronunciationFallbacks.includes(e.text)) fellBack++;
    } else if (e.rule.alias && ruled.plan.text.includes(e.rule.alias)) aliasApplied++;
    const verdict = judgeEnginePhones(kind, e, ruled.phones);
    if (!verdict) continue;
    judged++;
    const t = byType.get(e.rule.type) ?? { n: 0, ok: 0 };
    t.n++;
    if (verdict.ok) t.ok++;
    byType.set(e.rule.type, t);
    if (verdict.ok) ok++;
    else misses.push(`${e.text} [${e.rule.type}] (${verdict.got} ≠ ${verdict.expected})`);
    if (judgeEnginePhones(kind, e, (await spoken(false, e)).phones)?.ok) base++;
  }
  if (misses.length) console.log(`${label} misses: ${misses.join('; ')}`);
  const aliases = english.length - phonemeRules;
  return [
    {
      metric: `${label}: spoken as the rule says, judged by its own phones (${ok}/${judged})`,
      value: pct(ok, judged),
      unit: '%',
    },
    ...[...byType].map(([type, t]) => ({
      metric: `${label}: ${type} rules spoken as the rule says (${t.ok}/${t.n})`,
      value: pct(t.ok, t.n),
      unit: '%',
    })),
    { metric: `${label}: the same words without the rules (${base}/${judged})`, value: pct(base, judged), unit: '%' },
    {
      metric: `${label}: phoneme rules given in its phones ${phonemeRules - fellBack}/${phonemeRules}, alias rules given ${aliasApplied}/${aliases}`,
      value: pct(phonemeRules - fellBack + aliasApplied, english.length),
      unit: '%',
    },
    {
      metric: `${label}: phoneme rules that fall back (spoken as written; x-pronunciation-fallback) ${fellBack}/${phonemeRules}`,
      value: pct(fellBack, phonemeRules),
      unit: '%',
    },
  ];
}

export async function pronunciationRows(): Promise<BenchRow[]> {
  const set = loadPronunciationSet();
  const speech = await createSpeech({ cache: false });
  try {
    const rows = await espeakRows(speech, set);
    const flite = new FliteEngine();
    try {
      rows.push(...(await engineRows(speech, 'Flite (slt)', 'flite', flite, 'flite:slt', set)));
    } finally {
      await flite.close();
    }
    rows.push(...(await engineRows(speech, 'GnuSpeech (male)', 'gnuspeech', new GnuSpeechEngine(), 'gnuspeech:male', set)));
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
