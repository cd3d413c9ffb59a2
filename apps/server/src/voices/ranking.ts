import { QUALITY, type VoiceInfo } from '@polyvox/speech';

/**
 * The library lists voices best first, so a language's first voice (the playground's default, the
 * console's first pick, a designed voice's base) is its best installed one: by the quality rank each
 * engine and model declares (packages/speech/src/quality.ts: neural, then Flite, eSpeak NG, GnuSpeech),
 * then by measured intelligibility within an engine.
 */

/** Flite's voices by measured intelligibility: the clustergen voices first, the 8 kHz diphone last. */
const FLITE_ORDER = ['slt', 'awb', 'rms', 'kal16', 'kal'];

/** Where eSpeak has several dialects of a language, the one listeners understand best comes first. */
const PREFERRED_DIALECTS = new Set(['en-us', 'en-gb', 'es', 'es-es', 'fr', 'fr-fr', 'pt-br', 'de', 'cmn', 'zh', 'zh-cn', 'yue']);

/** Best first: the higher the quality rank, the lower the key (a voice without one ranks as eSpeak NG's). */
function qualityKey(v: VoiceInfo): number {
  return -(v.quality ?? QUALITY.espeak);
}

function withinEngine(v: VoiceInfo): number[] {
  if (v.engine === 'flite') {
    const at = FLITE_ORDER.indexOf(v.variant);
    return [at === -1 ? FLITE_ORDER.length : at];
  }
  // eSpeak: the plain voice before its +variants, the main dialect before regional ones.
  const variant = v.id.includes('+') ? 1 : 0;
  const primary = (v.languages[0] ?? '').toLowerCase();
  const dialect = PREFERRED_DIALECTS.has(primary) ? 0 : primary.includes('-') ? 2 : 1;
  return [variant, dialect];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Best first; voices that rank the same keep the engines' order. */
export function rankVoices<T extends { info: VoiceInfo }>(voices: T[]): T[] {
  return voices
    .map((v, i) => ({ v, key: [qualityKey(v.info), ...withinEngine(v.info), i] }))
    .sort((a, b) => compare(a.key, b.key))
    .map((x) => x.v);
}
