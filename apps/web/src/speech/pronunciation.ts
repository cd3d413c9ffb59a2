import type { z } from 'zod';
import type {
  AddDictionaryResponse,
  DictionaryList,
  DictionaryMetadata,
  DictionaryVersions,
  DictionaryWithRules,
  NormalizeResponse,
  PronunciationRule,
  RulesChangedResponse,
} from '@polyvox/contracts';
import { http } from '../api/client';
import type { Estimate } from './types';

/** Pronunciation dictionaries on ElevenLabs' routes (a session works as a key does), and the spoken-form preview. */

export type Dictionary = z.infer<typeof DictionaryMetadata>;
export type DictionaryDetail = z.infer<typeof DictionaryWithRules>;
export type DictionaryVersion = z.infer<typeof DictionaryVersions>['versions'][number];
export type Rule = PronunciationRule;
export type Locator = { pronunciation_dictionary_id: string; version_id?: string };

const BASE = '/v1/pronunciation-dictionaries';
const at = (id: string) => `${BASE}/${encodeURIComponent(id)}`;

export function listDictionaries(includeArchived: boolean, signal?: AbortSignal): Promise<z.infer<typeof DictionaryList>> {
  return http('GET', BASE, { query: { page_size: 100, include_archived: includeArchived }, signal });
}

export function fetchDictionary(id: string, signal?: AbortSignal): Promise<DictionaryDetail> {
  return http('GET', at(id), { signal });
}

export function fetchVersions(id: string, signal?: AbortSignal): Promise<z.infer<typeof DictionaryVersions>> {
  return http('GET', `${at(id)}/versions`, { signal });
}

export function createFromRules(name: string, rules: Rule[]): Promise<z.infer<typeof AddDictionaryResponse>> {
  return http('POST', `${BASE}/add-from-rules`, { json: { name, rules } });
}

export function createFromFile(name: string, file: File): Promise<z.infer<typeof AddDictionaryResponse>> {
  const form = new FormData();
  form.append('name', name);
  form.append('file', file, file.name);
  return http('POST', `${BASE}/add-from-file`, { form });
}

export function addRules(id: string, rules: Rule[]): Promise<z.infer<typeof RulesChangedResponse>> {
  return http('POST', `${at(id)}/add-rules`, { json: { rules } });
}

export function removeRules(id: string, strings: string[]): Promise<z.infer<typeof RulesChangedResponse>> {
  return http('POST', `${at(id)}/remove-rules`, { json: { rule_strings: strings } });
}

export function updateDictionary(id: string, changes: { archived?: boolean; default?: boolean }): Promise<Dictionary> {
  return http('PATCH', at(id), { json: changes });
}

/** A version as its PLS file's text. */
export async function downloadVersion(id: string, versionId: string): Promise<Blob> {
  const res: Response = await http('GET', `${at(id)}/${encodeURIComponent(versionId)}/download`, { raw: true });
  return res.blob();
}

export function estimateWith(text: string, voiceId: string, locators: Locator[], signal?: AbortSignal): Promise<Estimate> {
  return http('POST', '/tts/estimate', {
    json: { text, voice_id: voiceId, pronunciation_dictionary_locators: locators },
    signal,
  });
}

/** POST /tts: the whole file (mp3), charged as any synthesis. */
export async function speakWith(text: string, voiceId: string, locators: Locator[]): Promise<Blob> {
  const res: Response = await http('POST', '/tts', {
    json: { text, voice_id: voiceId, format: 'mp3', pronunciation_dictionary_locators: locators },
    raw: true,
  });
  return res.blob();
}

/**
 * POST /tts/normalize: the text exactly as the voice will be given it; nothing is charged. Without locators the field
 * is left out, so the account's default dictionary applies, as in synthesis.
 */
export function normalizeWith(
  text: string,
  voiceId: string,
  locators: Locator[] | undefined,
  signal?: AbortSignal,
): Promise<z.infer<typeof NormalizeResponse>> {
  return http('POST', '/tts/normalize', {
    json: { text, voice_id: voiceId, ...(locators ? { pronunciation_dictionary_locators: locators } : {}) },
    signal,
  });
}

/**
 * The rules a synthesis with these dictionaries applies, in order (each dictionary's latest version); with none named,
 * the account's default dictionary's, if it set one.
 */
export async function rulesApplied(ids: readonly string[], signal?: AbortSignal): Promise<DictionaryDetail['rules']> {
  const named = ids.length
    ? ids
    : (await listDictionaries(false, signal)).pronunciation_dictionaries.filter((d) => d.default).map((d) => d.id);
  const dictionaries = await Promise.all(named.map((id) => fetchDictionary(id, signal)));
  return dictionaries.flatMap((d) => d.rules);
}
