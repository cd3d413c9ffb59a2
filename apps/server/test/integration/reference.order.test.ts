import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

interface Doc {
  tags: { name: string; description?: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, { tags?: string[]; security?: Record<string, string[]>[] }>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; description?: string }> };
}

/** Tags named with Latin letters only: what a Chinese reader should not meet as a section name. */
const ENGLISH_ONLY = /^[a-z -]+$/i;

describe.each(DIALECTS)('API reference: public API first, in the reader’s language, a Bearer key by default (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WARMUP: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const doc = async (lang: string) => {
    const res = await new Client(t.url, lang).get<Doc>('/openapi.json');
    expect(res.status).toBe(200);
    return res.body;
  };

  it('leads with the speech API and leaves account internals and operations last', async () => {
    const names = (await doc('en')).tags.map((tag) => tag.name);
    expect(names[0]).toBe('synthesis');
    expect(names.indexOf('elevenlabs')).toBeLessThan(names.indexOf('accounts'));
    expect(names.indexOf('voices')).toBeLessThan(names.indexOf('sign-in'));
    expect(names.slice(-4)).toEqual(['accounts', 'sign-in', 'documents', 'operations']);
    // Every tag an operation carries is listed, once.
    const used = new Set(
      Object.values((await doc('en')).paths).flatMap((ops) => Object.values(ops).flatMap((o) => o.tags ?? [])),
    );
    expect(new Set(names)).toEqual(used);
    expect(names).toHaveLength(used.size);
  });

  it('names and describes every section in Chinese for a Chinese reader', async () => {
    for (const [lang, first] of [
      ['zh-CN', '语音合成'],
      ['zh-TW', '語音合成'],
    ] as const) {
      const d = await doc(lang);
      expect(d.tags[0]!.name).toBe(first);
      for (const tag of d.tags) {
        expect(tag.name, `${lang}: ${tag.name}`).not.toMatch(ENGLISH_ONLY);
        expect(tag.description, `${lang}: ${tag.name}`).toMatch(/[\u4e00-\u9fff]/);
      }
      const speech = d.paths['/v1/audio/speech']!.post!;
      expect(speech.tags).toEqual([d.tags[0]!.name]);
      expect(d.components.securitySchemes.bearer!.description).toMatch(/[\u4e00-\u9fff]/);
    }
    expect((await doc('zh-TW')).tags.map((tag) => tag.name)).toContain('API 金鑰');
  });

  it('offers a Bearer API key first, and a session only where the route takes nothing else', async () => {
    const d = await doc('en');
    expect(d.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(d.components.securitySchemes.bearer!.description).toMatch(/API key/);
    expect(Object.keys(d.security[0]!)).toEqual(['bearer']);
    expect(Object.keys(d.paths['/v1/audio/speech']!.post!.security![0]!)).toEqual(['bearer']);
    expect(Object.keys(d.paths['/tts']!.post!.security![0]!)).toEqual(['bearer']);
    // Keys are managed with a session only: the reference says so rather than offering a key that is refused.
    expect(Object.keys(d.paths['/api/authorization']!.get!.security![0]!)).toEqual(['session']);
    // Public routes ask for nothing.
    expect(d.paths['/healthz']!.get!.security).toEqual([]);
  });
});
