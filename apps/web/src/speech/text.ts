/**
 * The characters that count towards the limit and the price: every character but whitespace,
 * counted by code point (the server's rule, so an emoji or a rare CJK character counts once).
 */
export function countCharacters(text: string): number {
  let n = 0;
  for (const ch of text) if (!/\s/u.test(ch)) n++;
  return n;
}

export interface TextState {
  characters: number;
  max: number;
  empty: boolean;
  over: boolean;
  /** 0–100, for a progress ring or bar. */
  percent: number;
}

/** `characters`: the count when it is not the whole text's (SSML: its spoken characters, as the server priced them). */
export function textState(text: string, max: number, characters = countCharacters(text)): TextState {
  return {
    characters,
    max,
    empty: characters === 0,
    over: characters > max,
    percent: max > 0 ? Math.min(100, (characters / max) * 100) : 100,
  };
}

/** Texts above the threshold run as a job (progress, then the audio); a missing threshold means never. */
export function runsAsJob(characters: number, threshold: number | undefined): boolean {
  return typeof threshold === 'number' && threshold > 0 && characters > threshold;
}
