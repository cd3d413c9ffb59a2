/** The limit field of the key dialogs: empty means no limit; otherwise a whole, non-negative number of credits. */
export function parseLimit(input: string | number): number | null | 'invalid' {
  if (typeof input === 'number') return Number.isSafeInteger(input) && input >= 0 ? input : 'invalid';
  const text = input.trim().replace(/[,\s_]/g, '');
  if (text === '') return null;
  if (!/^\d+$/.test(text)) return 'invalid';
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : 'invalid';
}

/** A key's name as the server accepts it: trimmed, not empty (its own length rule answers VALIDATION_FAILED). */
export function cleanName(input: string): string | null {
  const name = input.trim();
  return name === '' ? null : name;
}

/** How the secret is used, for the created-key dialog. */
export function curlExample(origin: string, key: string): string {
  return `curl ${origin}/v1/audio/speech -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"model":"tts-1","input":"Hello","voice":"alloy"}' -o hello.mp3`;
}
