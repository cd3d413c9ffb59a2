import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>tomato</grapheme><phoneme>təˈmɑːtoʊ</phoneme></lexeme>
  <lexeme><grapheme>UN</grapheme><alias>United Nations Organization of every country</alias></lexeme>
</lexicon>`;

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe.each(DIALECTS)('the official ElevenLabs SDK’s pronunciation dictionaries against Polyvox (%s)', (dialect) => {
  let t: TestApp;
  let eleven: ElevenLabsClient;
  beforeAll(async () => {
    const app = await keyedApp(dialect, 50_000, 'sdk-dict');
    t = app.t;
    eleven = new ElevenLabsClient({ apiKey: app.key.key, baseUrl: t.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates, reads, changes, lists and downloads dictionaries unchanged', async () => {
    const fromFile = await eleven.pronunciationDictionaries.createFromFile({
      name: 'From a file',
      description: 'PLS',
      file: new File([PLS], 'lexicon.pls', { type: 'application/pls+xml' }),
    });
    expect(fromFile).toMatchObject({
      name: 'From a file',
      description: 'PLS',
      versionRulesNum: 2,
      permissionOnResource: 'admin',
    });
    expect(typeof fromFile.creationTimeUnix).toBe('number');

    const fromRules = await eleven.pronunciationDictionaries.createFromRules({
      name: 'From rules',
      rules: [
        { type: 'alias', stringToReplace: 'Thailand', caseSensitive: true, wordBoundaries: true, alias: 'tie-land' },
        { type: 'phoneme', stringToReplace: 'GIF', phoneme: 'JH IH1 F', alphabet: 'cmu-arpabet' },
      ],
    });
    expect(fromRules.versionRulesNum).toBe(2);

    const got = await eleven.pronunciationDictionaries.get(fromRules.id);
    expect(got).toMatchObject({
      id: fromRules.id,
      latestVersionId: fromRules.versionId,
      latestVersionRulesNum: 2,
      name: 'From rules',
    });
    expect(got.rules).toEqual([
      { type: 'alias', stringToReplace: 'Thailand', caseSensitive: true, wordBoundaries: true, alias: 'tie-land' },
      { type: 'phoneme', stringToReplace: 'GIF', phoneme: 'JH IH1 F', alphabet: 'cmu-arpabet' },
    ]);

    const added = await eleven.pronunciationDictionaries.rules.add(fromRules.id, {
      rules: [{ type: 'alias', stringToReplace: 'SQL', alias: 'sequel' }],
    });
    expect(added).toMatchObject({ id: fromRules.id, versionRulesNum: 3 });
    expect(added.versionId).not.toBe(fromRules.versionId);
    const removed = await eleven.pronunciationDictionaries.rules.remove(fromRules.id, { ruleStrings: ['Thailand'] });
    expect(removed.versionRulesNum).toBe(2);

    const list = await eleven.pronunciationDictionaries.list({ pageSize: 10 });
    expect(list.hasMore).toBe(false);
    expect(list.pronunciationDictionaries.map((d) => d.name)).toEqual(['From rules', 'From a file']);
    expect(list.pronunciationDictionaries[0]).toMatchObject({ latestVersionId: removed.versionId, latestVersionRulesNum: 2 });

    // Every version downloads as the PLS it was.
    const first = await text(await eleven.pronunciationDictionaries.download(fromRules.id, fromRules.versionId));
    expect(first).toContain('<grapheme>Thailand</grapheme>');
    const last = await text(await eleven.pronunciationDictionaries.download(fromRules.id, removed.versionId));
    expect(last).not.toContain('Thailand');
    expect(last).toContain('<alias>sequel</alias>');

    const archived = await eleven.pronunciationDictionaries.update(fromFile.id, { archived: true });
    expect(archived.archivedTimeUnix).toBeGreaterThan(0);
    expect((await eleven.pronunciationDictionaries.list()).pronunciationDictionaries.map((d) => d.name)).toEqual(['From rules']);

    // A missing dictionary is the SDK's error with the 404.
    const missing = await eleven.pronunciationDictionaries.get('pd_missing').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ElevenLabsError);
    expect((missing as ElevenLabsError).statusCode).toBe(404);
  });

  it('applies a dictionary the SDK names in its text-to-speech calls', async () => {
    const dict = await eleven.pronunciationDictionaries.createFromFile({
      name: 'Applied',
      file: new File([PLS], 'lexicon.pls'),
    });
    const locators = [{ pronunciationDictionaryId: dict.id, versionId: dict.versionId }];
    const voice = 'voice_espeak.en-us';
    const say = 'The UN grows a tomato.';
    const plain = await eleven.textToSpeech.convertWithTimestamps(voice, { text: say, outputFormat: 'pcm_22050' });
    const ruled = await eleven.textToSpeech.convertWithTimestamps(voice, {
      text: say,
      outputFormat: 'pcm_22050',
      pronunciationDictionaryLocators: locators,
    });
    const bytes = (r: { audioBase64: string }) => Buffer.from(r.audioBase64, 'base64').length;
    expect(bytes(ruled)).toBeGreaterThan(bytes(plain) * 1.3);
    expect(ruled.alignment!.characters.join('')).toBe(say);
    const audio = await eleven.textToSpeech.convert(voice, {
      text: say,
      outputFormat: 'pcm_22050',
      pronunciationDictionaryLocators: locators,
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of audio) chunks.push(chunk);
    expect(Buffer.concat(chunks).length).toBeGreaterThan(bytes(plain) * 1.3);
  });
});
