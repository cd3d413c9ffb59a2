import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalEngines } from '../src/engines/local.ts';
import type { ModelsChange } from '../src/engines/sherpa.ts';
import { VoiceLibrary } from '../src/speech/library.ts';
import { ModelWatch } from '../src/speech/model-watch.ts';
import { openAIServer } from './support/provider-servers.ts';
import { writeTinyPiper } from './support/tiny-models.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the voice library (speech/library.ts)', () => {
  const library = new VoiceLibrary(createLocalEngines({}));

  it('lists the local voices by engine, language (a tag or its family), gender and name', () => {
    const espeak = library.list({ engine: 'espeak' });
    expect(espeak.length).toBeGreaterThan(50);
    expect(espeak.every((v) => v.engine === 'espeak' && v.quality !== undefined)).toBe(true);
    const en = library.list({ language: 'en' });
    expect(en.some((v) => v.languages.includes('en-US'))).toBe(true);
    expect(en.every((v) => v.languages.some((l) => l.toLowerCase().split('-')[0] === 'en'))).toBe(true);
    expect(library.list({ engine: 'espeak', gender: 'female' }).every((v) => v.gender === 'female')).toBe(true);
    expect(library.list({ neural: true })).toEqual([]);
    expect(library.find('espeak:en-us')?.engine).toBe('espeak');
    expect(library.find('nope')).toBeUndefined();
    expect(library.models().every((m) => m.quality !== undefined)).toBe(true);
  });

  it("finds a language's voice (its own, else its family's) and the aligner's eSpeak NG reference", () => {
    expect(library.findLanguageVoice('espeak', 'en-US')?.languages.map((l) => l.toLowerCase())).toContain('en-us');
    // No eSpeak voice of en-NZ: one of its family speaks it.
    expect(library.referenceVoice('en-NZ')?.languages.some((l) => l.startsWith('en'))).toBe(true);
    expect(library.referenceVoice('qaa')).toBeUndefined();
    expect(library.timedEngine('espeak')).toBe(true);
    expect(library.timedEngine('openai')).toBe(false);
  });

  it('refuses to mix an unknown voice or voices of a model that does not mix, and to clone without sherpa', () => {
    expect(() => library.mix([{ voiceId: 'nope', weight: 1 }])).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    const unmixable = library.list({ mixable: false })[0]!;
    expect(() => library.mix([{ voiceId: unmixable.id, weight: 1 }])).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
    expect(() => library.cloneVoice('zipvoice', 'Me')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it("replaces the remote providers: their voices come and go, a provider's models that stay count as changed", async () => {
    const server = await openAIServer();
    try {
      const remote = new VoiceLibrary(createLocalEngines({}));
      const config = { openai: { url: server.url, key: 'k' } };
      const first = await remote.setRemote(config);
      expect(first.unavailable).toEqual([]);
      expect(first.change.added.length).toBeGreaterThan(0);
      expect(first.change.removed).toEqual([]);
      expect(remote.list({ engine: 'openai' }).length).toBeGreaterThan(0);
      const again = await remote.setRemote(config);
      expect(again.change).toMatchObject({ added: [], removed: [], changed: first.change.added });
      const gone = await remote.setRemote({});
      expect(gone.change.removed).toEqual(first.change.added);
      expect(remote.list({ engine: 'openai' })).toEqual([]);
      expect(remote.remote.size).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe("MODELS_DIR's watch (speech/model-watch.ts)", () => {
  it('reads a model added to the folder, tells every listener (one failing or not), and stops telling one that left', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'polyvox-watch-'));
    dirs.push(dir);
    const library = new VoiceLibrary(createLocalEngines({ modelsDir: dir }));
    const watch = new ModelWatch(library, 0);
    try {
      const seen: ModelsChange[] = [];
      const left: ModelsChange[] = [];
      watch.on(() => {
        throw new Error('a listener that fails');
      });
      watch.on((c) => seen.push(c));
      const off = watch.on((c) => left.push(c));
      // Nothing changed: nobody is told.
      expect(watch.rescan()).toMatchObject({ added: [], removed: [], changed: [] });
      expect(seen).toEqual([]);
      off();
      writeTinyPiper(path.join(dir, 'piper-en'), 'en_GB-solo-low');
      const change = watch.rescan();
      expect(change.added.length).toBe(1);
      expect(seen.map((c) => c.added)).toEqual([change.added]);
      expect(left).toEqual([]);
      // The library was read again: the new model's voices are there.
      expect(library.list({ model: change.added[0]! }).length).toBeGreaterThan(0);
    } finally {
      watch.close();
    }
  });
});
