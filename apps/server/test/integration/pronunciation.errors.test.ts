import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { eventually, heldHolds } from '../support/leave.js';

function plsForm(pls: string | Uint8Array, name = 'Bad'): FormData {
  const form = new FormData();
  form.append('name', name);
  form.append('file', new Blob([pls]), 'lexicon.pls');
  return form;
}

const lexeme = (g: string) => `<lexeme><grapheme>${g}</grapheme><alias>an alias of ${g}</alias></lexeme>`;
const lexicon = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">${body}</lexicon>`;

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lexicon [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa">
  <lexeme><grapheme>lol</grapheme><alias>&lol9;</alias></lexeme>
</lexicon>`;

const XXE = `<?xml version="1.0"?>
<!DOCTYPE lexicon [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa">
  <lexeme><grapheme>secret</grapheme><alias>&xxe;</alias></lexeme>
</lexicon>`;

describe.each(DIALECTS)('pronunciation dictionary errors (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let mine: { id: string; version_id: string };
  beforeAll(async () => {
    t = await startTestApp(dialect);
    c = new Client(t.url);
    await c.anonymous();
    mine = (
      await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
        name: 'Mine',
        rules: [{ type: 'alias', string_to_replace: 'UN', alias: 'United Nations' }],
      })
    ).body;
  });
  afterAll(async () => {
    await t.close();
  });

  /** The contract's error; the pronunciation routes (ElevenLabs' shapes) add `detail`, the Polyvox routes do not. */
  let isPronunciationRoute = true;
  const expectError = (res: { status: number; body: any }, status: number, code: string, field?: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
    if (isPronunciationRoute) expect(res.body.detail).toEqual({ status: code.toLowerCase(), message: res.body.error.message });
    if (field) expect(res.body.error.message).toContain(field);
  };

  it('refuses a file that is not a PLS lexicon, naming what is wrong', async () => {
    const add = (pls: string) => c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(pls));
    expectError(await add('not xml at all <'), 400, 'VALIDATION_FAILED', 'XML');
    expectError(await add('<lexicon><lexeme><grapheme>x</grapheme></lexicon>'), 400, 'VALIDATION_FAILED', 'XML');
    expectError(await add('<?xml version="1.0"?><html></html>'), 400, 'VALIDATION_FAILED', 'lexicon');
    expectError(await add(lexicon('')), 400, 'VALIDATION_FAILED', 'no lexeme');
    expectError(await add(lexicon('<lexeme><grapheme>x</grapheme></lexeme>')), 400, 'VALIDATION_FAILED', 'neither');
    expectError(await add(lexicon('<lexeme><alias>x</alias></lexeme>')), 400, 'VALIDATION_FAILED', 'no grapheme');
    expectError(
      await add(lexicon('<lexeme><grapheme>x</grapheme><phoneme alphabet="sampa">x</phoneme></lexeme>')),
      400,
      'VALIDATION_FAILED',
      'Alphabet "sampa"',
    );
    expectError(
      await add(lexicon('<lexeme><grapheme>x</grapheme><alias>&nbsp;</alias></lexeme>')),
      400,
      'VALIDATION_FAILED',
      'entity',
    );
    // Without a file, or without a name.
    const noFile = new FormData();
    noFile.append('name', 'x');
    expectError(await c.post('/v1/pronunciation-dictionaries/add-from-file', noFile), 400, 'PARAMETERS_NEEDED');
    const noName = new FormData();
    noName.append('file', new Blob([lexicon(lexeme('a'))]), 'a.pls');
    expectError(await c.post('/v1/pronunciation-dictionaries/add-from-file', noName), 400, 'PARAMETERS_NEEDED');
    expectError(await c.post('/v1/pronunciation-dictionaries/add-from-file', { name: 'json' }), 400, 'VALIDATION_FAILED');
  });

  it('reads a PLS phoneme in X-SAMPA as IPA, and names the symbols X-SAMPA has not, in the request’s language', async () => {
    const sampa = (ph: string) =>
      lexicon(`<lexeme><grapheme>tomato</grapheme><phoneme alphabet="x-sampa">${ph}</phoneme></lexeme>`);
    const made = await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(sampa('t@&quot;mA:t@U')));
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const got = await c.get(`/v1/pronunciation-dictionaries/${made.body.id}`);
    expect(got.body.rules).toEqual([{ type: 'phoneme', string_to_replace: 'tomato', phoneme: 'təˈmɑːtəʊ', alphabet: 'ipa' }]);
    const tw = new Client(t.url, 'zh-TW');
    tw.sid = c.sid;
    const bad = await tw.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(sampa('t@Жm$')));
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('第 1 個 lexeme：含有 X-SAMPA 中沒有的符號 "Ж", "$"');
  });

  it('refuses billion laughs and external entities before parsing, and a file or body that is too big', async () => {
    // Refused for its DOCTYPE, so before any entity is expanded.
    const laughs = await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(BILLION_LAUGHS));
    expectError(laughs, 400, 'VALIDATION_FAILED', 'DOCTYPE');
    const xxe = await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(XXE));
    expectError(xxe, 400, 'VALIDATION_FAILED', 'DOCTYPE');
    expect(JSON.stringify(xxe.body)).not.toContain('root:');

    // 10 MB of rules: as a file (over its 1 MB), and as JSON (over the body limit).
    const many = lexicon(lexeme('word').repeat(Math.ceil(10_000_000 / lexeme('word').length)));
    expectError(await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(many)), 413, 'FILE_TOO_LARGE');
    const rules = Array.from({ length: 120_000 }, (_, i) => ({
      type: 'alias',
      string_to_replace: `w${i}`,
      alias: `an alias of w${i}`,
    }));
    expectError(await c.post('/v1/pronunciation-dictionaries/add-from-rules', { name: 'Big', rules }), 413, 'FILE_TOO_LARGE');
    // Under the size limits, over the rule count.
    const count = lexicon(Array.from({ length: 2001 }, (_, i) => lexeme(`w${i}`)).join(''));
    expectError(await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(count)), 400, 'VALIDATION_FAILED', '2000');
    const tooMany = rules.slice(0, 2001);
    expectError(
      await c.post('/v1/pronunciation-dictionaries/add-from-rules', { name: 'Many', rules: tooMany }),
      400,
      'VALIDATION_FAILED',
    );
    // The server is still well.
    expect((await c.get(`/v1/pronunciation-dictionaries/${mine.id}`)).status).toBe(200);
  });

  it('validates rules', async () => {
    const add = (rules: unknown) => c.post('/v1/pronunciation-dictionaries/add-from-rules', { name: 'R', rules });
    expectError(await add([]), 400, 'VALIDATION_FAILED');
    expectError(await add([{ type: 'alias', string_to_replace: 'x' }]), 400, 'PARAMETERS_NEEDED');
    expectError(
      await add([{ type: 'phoneme', string_to_replace: 'x', phoneme: 'x', alphabet: 'sampa' }]),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await add([{ type: 'shout', string_to_replace: 'x', alias: 'y' }]), 400, 'VALIDATION_FAILED');
    expectError(await add([{ type: 'alias', string_to_replace: '  ', alias: 'y' }]), 400, 'VALIDATION_FAILED');
    expectError(
      await c.post(`/v1/pronunciation-dictionaries/${mine.id}/remove-rules`, { rule_strings: [] }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('refuses a fourth locator, and unknown dictionaries and versions, before anything is charged', async () => {
    isPronunciationRoute = false;
    const balance = async () => (await c.get('/api/statistics/current')).body;
    const before = await balance();
    const tts = (locators: unknown) =>
      c.post('/tts', {
        text: 'The UN.',
        voice_id: 'voice_espeak.en-us',
        format: 'wav',
        pronunciation_dictionary_locators: locators,
      });
    const one = { pronunciation_dictionary_id: mine.id, version_id: mine.version_id };
    expectError(await tts([one, one, one, one]), 400, 'VALIDATION_FAILED', 'pronunciation_dictionary_locators');
    expectError(await tts([{ pronunciation_dictionary_id: 'pd_nope' }]), 404, 'NOT_FOUND');
    expectError(await tts([{ pronunciation_dictionary_id: mine.id, version_id: 'pdv_nope' }]), 404, 'NOT_FOUND');
    expectError(await tts([{ version_id: mine.version_id }]), 400, 'PARAMETERS_NEEDED');
    const estimate = await c.post('/tts/estimate', {
      text: 'x',
      voice_id: 'voice_espeak.en-us',
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'pd_nope' }],
    });
    expectError(estimate, 404, 'NOT_FOUND');
    expect(await balance()).toEqual(before);
    // Three are fine. The file's hold is settled just after the reply is written out: the next test reads the balance at rest.
    expect((await tts([one, one, one])).status).toBe(200);
    const accountId = (await c.get('/accounts/me')).body.id as string;
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    isPronunciationRoute = true;
  });

  it('refuses rules that would multiply the text unpriced, before anything is held or charged, in the request’s language', async () => {
    isPronunciationRoute = false;
    const balance = async () => (await c.get('/api/statistics/current')).body;
    const before = await balance();
    // An alias of 480 characters on "a": 400 priced characters would be spoken as about 190,000.
    const long = (
      await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
        name: 'Amplifier',
        rules: [{ type: 'alias', string_to_replace: 'a', alias: 'supercalifragilistic '.repeat(23).trim() }],
      })
    ).body as { id: string };
    expect(long.id).toMatch(/^pd_/);
    const body = {
      text: Array.from({ length: 400 }, () => 'a').join(' '),
      voice_id: 'voice_espeak.en-us',
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: long.id }],
    };
    const rule = /^Invalid value for text: pronunciation rules may add at most 900 characters to it \(these add \d+\)$/;
    for (const path of ['/tts/normalize', '/tts/estimate', '/tts', '/tts/jobs']) {
      const res = await c.post(path, { ...body, ...(path === '/tts/jobs' ? { format: 'wav' } : {}) });
      expect([res.status, res.body.error?.code], path).toEqual([400, 'VALIDATION_FAILED']);
      expect(res.body.error.message, path).toMatch(rule);
    }
    const openai = await c.post('/v1/audio/speech', { model: 'tts-1', voice: 'voice_espeak.en-us', input: body.text, ...body });
    expect(openai.status).toBe(400);
    // <phoneme ph> strings likewise: forty of 800 characters, one priced character each.
    const ssml = `<speak>${`<phoneme alphabet="ipa" ph="${'ʃə'.repeat(400)}">x</phoneme> `.repeat(40)}</speak>`;
    const phonemes = await c.post('/tts', { text: ssml, voice_id: 'voice_espeak.en-us', format: 'wav' });
    expectError(phonemes, 400, 'VALIDATION_FAILED');
    expect(phonemes.body.error.message).toMatch(/pronunciation rules may add at most 180 characters/);
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    expect((await zh.post('/tts/normalize', body)).body.error.message).toMatch(
      /^text 的值无效：发音规则最多只能为其增加 900 个字符（这些规则增加了 \d+ 个）$/,
    );
    expect(await balance()).toEqual(before);
    // The same rule once in a longer text is fine: it adds less than twice the text.
    const few = await c.post('/tts/normalize', { ...body, text: `${'Plain words here. '.repeat(15)}And a long one.` });
    expect(few.status, JSON.stringify(few.body)).toBe(200);
    isPronunciationRoute = true;
  });

  it('answers 404 for another account’s dictionary, everywhere', async () => {
    const other = new Client(t.url);
    await other.anonymous();
    expectError(await other.get(`/v1/pronunciation-dictionaries/${mine.id}`), 404, 'NOT_FOUND');
    expectError(await other.get(`/v1/pronunciation-dictionaries/${mine.id}/${mine.version_id}/download`), 404, 'NOT_FOUND');
    expectError(
      await other.post(`/v1/pronunciation-dictionaries/${mine.id}/add-rules`, {
        rules: [{ type: 'alias', string_to_replace: 'a', alias: 'b' }],
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await other.post(`/v1/pronunciation-dictionaries/${mine.id}/remove-rules`, { rule_strings: ['UN'] }),
      404,
      'NOT_FOUND',
    );
    expectError(await other.request('PATCH', `/v1/pronunciation-dictionaries/${mine.id}`, { archived: true }), 404, 'NOT_FOUND');
    expect((await other.get('/v1/pronunciation-dictionaries')).body.pronunciation_dictionaries).toEqual([]);
    isPronunciationRoute = false;
    const tts = await other.post('/tts', {
      text: 'The UN.',
      voice_id: 'voice_espeak.en-us',
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: mine.id, version_id: mine.version_id }],
    });
    expectError(tts, 404, 'NOT_FOUND');
    isPronunciationRoute = true;
    // A missing one answers the same.
    expectError(await other.get('/v1/pronunciation-dictionaries/pd_nope'), 404, 'NOT_FOUND');
    // Without a session or key: 401.
    const anon = new Client(t.url);
    expectError(await anon.get('/v1/pronunciation-dictionaries'), 401, 'UNAUTHENTICATED');
  });

  it('refuses NUL and other control characters in a PLS file as in JSON rules, in the request’s language', async () => {
    const add = (pls: string, client = c) => client.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(pls));
    const cases = [
      lexicon('<lexeme><grapheme>a\u0001b</grapheme><alias>ab</alias></lexeme>'),
      lexicon(`${lexeme('ok')}<lexeme><grapheme>ab</grapheme><alias>a&#1;b</alias></lexeme>`),
      lexicon('<lexeme><grapheme>ab</grapheme><phoneme>a&#x1F;b</phoneme></lexeme>'),
      lexicon('<lexeme><grapheme>a\u0000b</grapheme><alias>ab</alias></lexeme>'),
      lexicon('<lexeme><grapheme>ab</grapheme><phoneme>ab\u007f</phoneme></lexeme>'),
    ];
    for (const [i, pls] of cases.entries()) {
      const res = await add(pls);
      // A PLS file's errors are about the document: no field name before them.
      expectError(res, 400, 'VALIDATION_FAILED', 'control characters');
      expect(res.body.error.message, String(i)).toBe(`Lexeme ${i === 1 ? 2 : 1}: must not contain control characters`);
    }
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    expect((await add(cases[0]!, zh)).body.error.message).toBe('第 1 个 lexeme：不能包含控制字符');
    // The same in JSON rules (NUL is refused by the guard every JSON field goes through).
    const rules = (s: string) => [{ type: 'alias', string_to_replace: s, alias: 'x' }];
    for (const s of ['a\u0001b', 'a\u001bb', 'a\ud800b', 'a\uffffb']) {
      const res = await zh.post('/v1/pronunciation-dictionaries/add-from-rules', { name: 'C', rules: rules(s) });
      expectError(res, 400, 'VALIDATION_FAILED', 'rules.0.string_to_replace');
      expect(res.body.error.message).toContain('不能包含控制字符');
    }
    expectError(
      await c.post('/v1/pronunciation-dictionaries/add-from-rules', { name: 'N', rules: rules('a\u0000b') }),
      400,
      'VALIDATION_FAILED',
      'NUL',
    );
    const phoneme = [{ type: 'phoneme', string_to_replace: 'x', phoneme: 'a\u0002', alphabet: 'ipa' }];
    expectError(
      await c.post(`/v1/pronunciation-dictionaries/${mine.id}/add-rules`, { rules: phoneme }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await c.post(`/v1/pronunciation-dictionaries/${mine.id}/set-rules`, { rules: rules('\u0003') }),
      400,
      'VALIDATION_FAILED',
    );
    // The form's own fields, read apart from JSON, refuse NUL as JSON fields do.
    const named = await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(lexicon(lexeme('ok')), 'a\u0000b'));
    expectError(named, 400, 'VALIDATION_FAILED', 'name');
    expect(named.body.error.message).toContain('NUL');
  });

  it('downloads every version as well-formed XML, one stored before control characters were refused included', async () => {
    const made = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'Old',
      rules: [{ type: 'alias', string_to_replace: 'R&D <x> "q"', alias: 'research\tand\r\ndevelopment' }],
    });
    expect(made.status).toBe(200);
    // A version as an older release could store it (or as put into the database by hand).
    const stored = [
      { type: 'alias', string_to_replace: 'a\u0000b', alias: 'c\u0001d\u001f' },
      { type: 'phoneme', string_to_replace: 'e\ud800f', phoneme: 'g\ufffeh\u000b', alphabet: 'ipa', alias: 'i\u000cj' },
    ];
    const old = { id: `${made.body.version_id}x` };
    await t.ctx.db.kysely
      .insertInto('pronunciation_versions')
      .values({
        id: old.id,
        dictionary_id: made.body.id,
        rules: JSON.stringify(stored),
        rules_num: 2,
        created_at: new Date().toISOString(),
      })
      .execute();
    // Made its latest: still answered as stored (the rules of a GET are not held to what a request may send).
    await t.ctx.db.kysely
      .updateTable('pronunciation_dictionaries')
      .set({ latest_version_id: old.id })
      .where('id', '=', made.body.id)
      .execute();
    const got = await c.get(`/v1/pronunciation-dictionaries/${made.body.id}`);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.rules[0].string_to_replace).toBe('a\u0000b');
    const parser = new XMLParser({ htmlEntities: true, isArray: (name) => name === 'lexeme' });
    for (const version of [made.body.version_id as string, old.id]) {
      const res = await c.get(`/v1/pronunciation-dictionaries/${made.body.id}/${version}/download`);
      expect(res.status).toBe(200);
      const xml = res.body as string;
      expect(XMLValidator.validate(xml), xml).toBe(true);
      // XMLValidator does not check characters: every one must be XML 1.0's Char.
      // eslint-disable-next-line no-control-regex
      expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/u);
      const lexemes = parser.parse(xml).lexicon.lexeme as { grapheme: string; alias?: string; phoneme?: string }[];
      if (version === old.id) {
        // What XML cannot hold is written as U+FFFD.
        expect(lexemes).toEqual([
          { grapheme: 'a\ufffdb', alias: 'c\ufffdd\ufffd' },
          { grapheme: 'e\ufffdf', phoneme: 'g\ufffdh\ufffd', alias: 'i\ufffdj' },
        ]);
      } else {
        expect(lexemes).toEqual([{ grapheme: 'R&D <x> "q"', alias: 'research\tand\r\ndevelopment' }]);
        // A downloaded file is a dictionary again.
        expect((await c.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(xml, 'Again'))).status).toBe(200);
      }
    }
  });

  it('answers in the request’s language', async () => {
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    const res = await zh.post('/v1/pronunciation-dictionaries/add-from-file', plsForm(XXE));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('PLS 文件不能声明 DOCTYPE 或实体');
    // A file that is not well-formed: where, and what is wrong, in words (no field name, no parser English).
    const unclosed = await zh.post(
      '/v1/pronunciation-dictionaries/add-from-file',
      plsForm('<lexicon>\n<lexeme><grapheme>x</grapheme></lexicon>'),
    );
    expect(unclosed.body.error.message).toBe(
      'XML 格式不正确（第 2 行第 31 列）：第 2 行第 1 列的 <lexeme> 标签在 </lexicon> 之前没有关闭',
    );
    const tw = new Client(t.url, 'zh-TW');
    tw.sid = c.sid;
    const lexemeless = await tw.post(
      '/v1/pronunciation-dictionaries/add-from-file',
      plsForm(lexicon('<lexeme><alias>x</alias></lexeme>')),
    );
    expect(lexemeless.body.error.message).toBe('第 1 個 lexeme 沒有 grapheme');
  });
});
