/**
 * Where an SSML error is: the server's message names the line and column (from 1) in the request's language
 * ("at line 2, column 9", "第 2 行第 9 列", "第 2 行第 9 欄"); the console points at that place in the text.
 */
export interface SsmlPlace {
  line: number;
  column: number;
}

const PLACES = [/\bline (\d+), column (\d+)/, /第 ?(\d+) ?行第 ?(\d+) ?[列欄]/];

export function ssmlPlace(message: string): SsmlPlace | null {
  for (const re of PLACES) {
    const m = re.exec(message);
    if (m) return { line: Number(m[1]), column: Number(m[2]) };
  }
  return null;
}

/** The line the place is on, and the offset in `text` of the place itself (for selecting it). */
export function lineAt(text: string, place: SsmlPlace): { line: string; offset: number } {
  const lines = text.split('\n');
  const index = Math.min(Math.max(place.line, 1), lines.length) - 1;
  const line = lines[index] ?? '';
  let offset = 0;
  for (let i = 0; i < index; i++) offset += lines[i]!.length + 1;
  return { line, offset: offset + Math.min(Math.max(place.column - 1, 0), line.length) };
}

/** Text that the server reads as SSML whatever the switch says. */
export function opensAsSsml(text: string): boolean {
  return /^\s*(?:<\?xml|<!DOCTYPE|<speak[\s/>])/i.test(text);
}
