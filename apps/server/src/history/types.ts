/**
 * What the speech routes tell the history about a generation that delivered audio (synthesis/route-helpers.ts,
 * dialogue/, the jobs). A leaf: the routes above import it, it imports nothing of theirs.
 */
export interface HistoryEntry {
  accountId: string;
  apiKeyId: string | null;
  requestId: string | null;
  /** The hold the generation was paid from: its settle entry gives the charge and the balance around it. */
  holdId: string | null;
  /** The route it came by, as `POST /v1/text-to-speech/{voice_id}`. */
  route: string;
  text: string;
  voiceId: string | null;
  voiceName: string | null;
  /** The public voice's type (preset, mix, prompt, clone). */
  voiceType: string | null;
  modelId: string | null;
  settings: Record<string, unknown>;
  dialogue?: { text: string; voice_id: string; voice_name: string }[];
  outputFormat: string;
  contentType: string;
  characters: number;
  /** The price held; the settle entry's charge replaces it when there is one. */
  credits: number;
}

/** Audio being delivered in chunks, written to storage as it goes. */
export interface HistoryCapture {
  /** The hold, once taken (a stream takes it on its first chunk). */
  held(holdId: string): void;
  /** Waits while storage is behind, so nothing long piles up in memory. */
  add(chunk: Buffer): Promise<void>;
  /** `delivered`: the whole stream went out and was paid for (an item is recorded); otherwise the bytes are dropped. */
  finish(delivered: boolean): Promise<void>;
}

/** Where generations are recorded; every failure is logged by the recorder, never thrown at the delivery. */
export interface HistoryRecorder {
  /** A whole file, once delivered and paid for. */
  recordFile(entry: HistoryEntry, audio: Buffer): Promise<void>;
  /** A stream, as it is delivered. */
  capture(entry: HistoryEntry): HistoryCapture;
  /** A file already in storage (a job's audio), copied as it is read. */
  recordStored(entry: HistoryEntry, key: string): Promise<void>;
}

/** ElevenLabs' voice category of a voice type. */
export function voiceCategoryOf(type: string | null): 'premade' | 'cloned' | 'generated' | null {
  if (type === null) return null;
  if (type === 'preset') return 'premade';
  if (type === 'clone') return 'cloned';
  return 'generated';
}

/** The settings a request's body carries, by any dialect's names: what it was made with, for the history. */
export function settingsOf(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object') return {};
  const keys = [
    'format',
    'output_format',
    'response_format',
    'speed',
    'pitch',
    'language',
    'language_code',
    'voice_settings',
    'settings',
    'instructions',
    'seed',
    'apply_text_normalization',
    'text_type',
    'pronunciation_dictionary_locators',
  ];
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = (body as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}
