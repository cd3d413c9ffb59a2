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

export interface SampleRequest {
  /** A voice that speaks `text`'s language (an OpenAI voice name speaks English only). */
  voice: string;
  text: string;
  /** The language errors are answered in (the console's). */
  lang: string;
}

/** The shell's single quotes around the JSON body: a quote inside is closed, escaped and reopened. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * How a key is used, for the keys page and the created-key dialog: the OpenAI-compatible route, a voice that speaks the
 * sample's language, and Accept-Language so that a refusal comes back in the reader's language.
 */
export function curlExample(origin: string, key: string, sample: SampleRequest): string {
  const body = JSON.stringify({ model: 'tts-1', input: sample.text, voice: sample.voice });
  return [
    `curl ${origin}/v1/audio/speech`,
    `  -H "Authorization: Bearer ${key}"`,
    '  -H "Content-Type: application/json"',
    `  -H "Accept-Language: ${sample.lang}"`,
    `  -d ${shellQuoted(body)}`,
    '  -o speech.mp3',
  ].join(' \\\n');
}
