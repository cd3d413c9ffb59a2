import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { runAdmin } from '../../src/admin/cli.js';

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme>
    <grapheme>tomato</grapheme>
    <grapheme>Tomato</grapheme>
    <phoneme>təˈmɑːtoʊ</phoneme>
  </lexeme>
  <lexeme>
    <grapheme>UN</grapheme>
    <alias>United Nations</alias>
  </lexeme>
  <lexeme>
    <grapheme>GIF</grapheme>
    <phoneme alphabet="x-cmu">JH IH1 F</phoneme>
    <alias>jif</alias>
  </lexeme>
  <lexeme>
    <grapheme>R&amp;D</grapheme>
    <alias>research &#38; development</alias>
  </lexeme>
</lexicon>`;

function plsForm(name: string, pls: string, extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('name', name);
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  form.append('file', new Blob([pls], { type: 'application/pls+xml' }), 'lexicon.pls');
  return form;
}

describe.each(DIALECTS)('pronunciation dictionaries (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    c = new Client(t.url);
    await c.anonymous();
    key = ((await c.put('/api/authorization', { name: 'dict' })).body as { key: string }).key;
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates from a PLS file and from rules, lists, gets, and keeps every version', async () => {
    const fromFile = await c.post(
      '/v1/pronunciation-dictionaries/add-from-file',
      plsForm('Lexicon', PLS, { description: 'from a file' }),
    );
    expect(fromFile.status).toBe(200);
    expect(fromFile.body).toMatchObject({
      name: 'Lexicon',
      description: 'from a file',
      version_rules_num: 5,
      permission_on_resource: 'admin',
      default: false,
    });
    expect(fromFile.body.id).toMatch(/^pd_/);
    expect(fromFile.body.version_id).toMatch(/^pdv_/);
    expect(Math.abs(fromFile.body.creation_time_unix - Date.now() / 1000)).toBeLessThan(60);

    const got = await c.get(`/v1/pronunciation-dictionaries/${fromFile.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.latest_version_id).toBe(fromFile.body.version_id);
    expect(got.body.rules).toEqual([
      { type: 'phoneme', string_to_replace: 'tomato', phoneme: 'təˈmɑːtoʊ', alphabet: 'ipa' },
      { type: 'phoneme', string_to_replace: 'Tomato', phoneme: 'təˈmɑːtoʊ', alphabet: 'ipa' },
      { type: 'alias', string_to_replace: 'UN', alias: 'United Nations' },
      { type: 'phoneme', string_to_replace: 'GIF', phoneme: 'JH IH1 F', alphabet: 'cmu-arpabet', alias: 'jif' },
      { type: 'alias', string_to_replace: 'R&D', alias: 'research & development' },
    ]);

    // With an API key, in ElevenLabs' header.
    const fromRules = await c.post(
      '/v1/pronunciation-dictionaries/add-from-rules',
      {
        name: 'Rules',
        rules: [
          { type: 'alias', string_to_replace: 'Polyvox', alias: 'polly vox', case_sensitive: false },
          { type: 'phoneme', string_to_replace: 'nginx', phoneme: 'ˈɛndʒɪnˈɛks', alphabet: 'ipa' },
        ],
      },
      { 'xi-api-key': key },
    );
    expect(fromRules.status).toBe(200);
    expect(fromRules.body.version_rules_num).toBe(2);
    const id = fromRules.body.id as string;
    const v1 = fromRules.body.version_id as string;

    const added = await c.post(`/v1/pronunciation-dictionaries/${id}/add-rules`, {
      rules: [
        { type: 'alias', string_to_replace: 'SQL', alias: 'sequel' },
        // A rule for a string it has replaces that one, in its place.
        { type: 'alias', string_to_replace: 'Polyvox', alias: 'poly voks' },
      ],
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ id, version_rules_num: 3 });
    const v2 = added.body.version_id as string;
    expect(v2).not.toBe(v1);
    const removed = await c.post(`/v1/pronunciation-dictionaries/${id}/remove-rules`, { rule_strings: ['nginx', 'absent'] });
    expect(removed.status).toBe(200);
    expect(removed.body.version_rules_num).toBe(2);
    const v3 = removed.body.version_id as string;

    const now = await c.get(`/v1/pronunciation-dictionaries/${id}`, { authorization: `Bearer ${key}` });
    expect(now.body).toMatchObject({ latest_version_id: v3, latest_version_rules_num: 2 });
    expect(now.body.rules.map((r: { string_to_replace: string }) => r.string_to_replace)).toEqual(['Polyvox', 'SQL']);

    // Polyvox lists the versions, newest first, the latest marked.
    const versions = await c.get(`/v1/pronunciation-dictionaries/${id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.versions.map((v: { version_id: string }) => v.version_id)).toEqual([v3, v2, v1]);
    expect(versions.body.versions.map((v: { version_rules_num: number }) => v.version_rules_num)).toEqual([2, 3, 2]);
    expect(versions.body.versions.map((v: { latest: boolean }) => v.latest)).toEqual([true, false, false]);
    expect((await c.get(`/v1/pronunciation-dictionaries/pd_missing/versions`)).status).toBe(404);

    // Each version downloads as it was.
    const first = await c.get(`/v1/pronunciation-dictionaries/${id}/${v1}/download`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('application/pls+xml');
    expect(first.body).toContain('<grapheme>nginx</grapheme>');
    expect(first.body).toContain('<phoneme>ˈɛndʒɪnˈɛks</phoneme>');
    const last = await c.get(`/v1/pronunciation-dictionaries/${id}/${v3}/download`);
    expect(last.body).not.toContain('nginx');
    expect(last.body).toContain('<alias>sequel</alias>');
    // A downloaded file is a dictionary again.
    const again = await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm('Again', first.body as string));
    expect(again.status).toBe(200);
    expect(again.body.version_rules_num).toBe(2);

    const list = await c.get('/v1/pronunciation-dictionaries?page_size=2');
    expect(list.status).toBe(200);
    expect(list.body.has_more).toBe(true);
    expect(list.body.pronunciation_dictionaries.map((d: { name: string }) => d.name)).toEqual(['Again', 'Rules']);
    const next = await c.get(`/v1/pronunciation-dictionaries?page_size=2&cursor=${list.body.next_cursor}`);
    expect(next.body.pronunciation_dictionaries.map((d: { name: string }) => d.name)).toEqual(['Lexicon']);
    expect(next.body.has_more).toBe(false);

    // Archived: out of the list unless asked for, still readable.
    const archived = await c.request('PATCH', `/v1/pronunciation-dictionaries/${again.body.id}`, { archived: true, name: 'Old' });
    expect(archived.status).toBe(200);
    expect(archived.body.archived_time_unix).toBeGreaterThan(0);
    expect(archived.body.name).toBe('Old');
    const names = async (q = '') =>
      ((await c.get(`/v1/pronunciation-dictionaries${q}`)).body.pronunciation_dictionaries as { name: string }[]).map(
        (d) => d.name,
      );
    expect(await names()).toEqual(['Rules', 'Lexicon']);
    expect(await names('?include_archived=true')).toEqual(['Old', 'Rules', 'Lexicon']);
  });

  it('shares the operator’s dictionaries with every account, read-only', async () => {
    // The operator shares a PLS file from the command line.
    const file = path.join(t.dataDir, 'house.pls');
    await fs.writeFile(file, PLS.replace('<grapheme>UN</grapheme>', '<grapheme>ACME</grapheme>'));
    const env = {
      DATA_DIR: t.dataDir,
      ...(t.ctx.config.DATABASE_URL ? { DATABASE_URL: t.ctx.config.DATABASE_URL } : {}),
      LOG_LEVEL: 'silent',
    };
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(['dictionary', file, 'House style'], env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(code, err.join('\n')).toBe(0);
    const id = /dictionary (pd_\S+)/.exec(out.join('\n'))![1]!;
    const shared = { id };
    // A file it refuses is a refusal, not a crash.
    await fs.writeFile(file, '<!DOCTYPE x [<!ENTITY a "b">]><lexicon/>');
    expect(await runAdmin(['dictionary', file, 'Bad'], env, { out: () => {}, err: (l) => err.push(l) })).toBe(1);
    expect(err.join('\n')).toContain('VALIDATION_FAILED');
    const other = new Client(t.url);
    await other.anonymous();
    const seen = await other.get('/v1/pronunciation-dictionaries');
    expect(seen.body.pronunciation_dictionaries).toEqual([
      expect.objectContaining({ id: shared.id, shared: true, created_by: 'operator', permission_on_resource: 'viewer' }),
    ]);
    expect((await other.get(`/v1/pronunciation-dictionaries/${shared.id}`)).status).toBe(200);
    const refused = await other.post(`/v1/pronunciation-dictionaries/${shared.id}/add-rules`, {
      rules: [{ type: 'alias', string_to_replace: 'x', alias: 'y' }],
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN' }, detail: { status: 'forbidden' } });
  });

  it('loses no change when several come at once', async () => {
    const made = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'Busy',
      rules: [{ type: 'alias', string_to_replace: 'w0', alias: 'zero' }],
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        c.post(`/v1/pronunciation-dictionaries/${made.body.id}/add-rules`, {
          rules: [{ type: 'alias', string_to_replace: `w${i + 1}`, alias: `word ${i + 1}` }],
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.version_id)).size).toBe(6);
    const now = await c.get(`/v1/pronunciation-dictionaries/${made.body.id}`);
    expect(now.body.latest_version_rules_num).toBe(7);
    expect(now.body.rules.map((r: { string_to_replace: string }) => r.string_to_replace).sort()).toEqual([
      'w0',
      'w1',
      'w2',
      'w3',
      'w4',
      'w5',
      'w6',
    ]);
    await c.request('PATCH', `/v1/pronunciation-dictionaries/${made.body.id}`, { archived: true });
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await c.get('/openapi.json')).body;
    for (const p of [
      '/v1/pronunciation-dictionaries/add-from-file',
      '/v1/pronunciation-dictionaries/add-from-rules',
      '/v1/pronunciation-dictionaries',
      '/v1/pronunciation-dictionaries/{id}',
      '/v1/pronunciation-dictionaries/{id}/add-rules',
      '/v1/pronunciation-dictionaries/{id}/remove-rules',
      '/v1/pronunciation-dictionaries/{id}/{version_id}/download',
    ])
      expect(doc.paths, p).toHaveProperty([p]);
    expect(JSON.stringify(doc.paths['/tts'])).toContain('pronunciation_dictionary_locators');
    expect(JSON.stringify(doc.paths['/v1/text-to-speech/{voice_id}'])).toContain('pronunciation_dictionary_locators');
  });

  it('keeps one default dictionary per account', async () => {
    const a = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'A',
      default: true,
      rules: [{ type: 'alias', string_to_replace: 'a1', alias: 'one' }],
    });
    expect(a.body.default).toBe(true);
    const b = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'B',
      rules: [{ type: 'alias', string_to_replace: 'b1', alias: 'two' }],
    });
    const made = await c.request('PATCH', `/v1/pronunciation-dictionaries/${b.body.id}`, { default: true });
    expect(made.body.default).toBe(true);
    expect((await c.get(`/v1/pronunciation-dictionaries/${a.body.id}`)).body.default).toBe(false);
    const dropped = await c.request('PATCH', `/v1/pronunciation-dictionaries/${b.body.id}`, { default: false });
    expect(dropped.body.default).toBe(false);
  });
});
