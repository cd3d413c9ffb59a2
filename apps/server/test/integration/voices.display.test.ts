import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

const CJK = /[\u4e00-\u9fff]/;

describe.each(DIALECTS)('voice library display texts, defaults and random texts (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let web: string;
  beforeAll(async () => {
    web = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-web-'));
    await fs.mkdir(path.join(web, 'assets'));
    await fs.writeFile(path.join(web, 'index.html'), '<!doctype html><title>console</title>');
    await fs.writeFile(path.join(web, 'assets', 'index-abc.js'), 'console.log(1);');
    await fs.writeFile(path.join(web, 'assets', 'index-abc.js.map'), '{"version":3,"sources":["secret.ts"]}');
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', WEB_DIST: web } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
    await fs.rm(web, { recursive: true, force: true });
  });

  it('describes the models in the request language', async () => {
    for (const lang of ['zh-CN', 'zh-TW']) {
      const res = await c.get(`/tts/config?lang=${lang}`);
      expect(res.status).toBe(200);
      for (const m of res.body.models as { model: string; description: string }[]) {
        expect(m.description, `${m.model} in ${lang}`).toMatch(CJK);
      }
    }
    const en = await c.get('/tts/config?lang=en');
    for (const m of en.body.models as { description: string }[]) expect(m.description).not.toMatch(CJK);
  });

  it('names library voices in the request language, never by a raw locale code', async () => {
    const zhCN = await c.get('/voice?languages=en-029&lang=zh-CN');
    expect(zhCN.body.total).toBeGreaterThan(0);
    for (const v of zhCN.body.items as { name: string }[]) {
      expect(v.name).toMatch(/^英语/);
      expect(v.name).not.toContain('en-029');
    }
    const zhTW = await c.get('/voice?languages=en-029&lang=zh-TW');
    for (const v of zhTW.body.items as { name: string }[]) expect(v.name).toMatch(/^英[語文]（/);
    for (const code of ['smj', 'tlh', 'xex']) {
      const res = await c.get(`/voice?languages=${code}&lang=zh-CN`);
      for (const v of res.body.items as { name: string }[]) expect(v.name, code).toMatch(CJK);
    }
    const one = await c.get('/voice?id=voice_flite.slt&lang=zh-CN');
    expect(one.body.description).toMatch(CJK);
    // A name search finds a voice by its English name as well as by the shown one.
    const byEnglish = await c.get('/voice?name=Caribbean&lang=zh-CN');
    expect(byEnglish.body.total).toBeGreaterThan(0);
    const byChinese = await c.get(`/voice?name=${encodeURIComponent('加勒比')}&lang=zh-CN`);
    expect(byChinese.body.total).toBe(byEnglish.body.total);
  });

  it("lists a language's most intelligible voice first: Flite slt for English, not eSpeak's Caribbean", async () => {
    for (const languages of ['en', 'en-US']) {
      const res = await c.get(`/voice?source=official&languages=${languages}&page=1&page_size=1`);
      expect(res.body.items[0].id).toBe('voice_flite.slt');
    }
    const british = await c.get('/voice?source=official&languages=en-GB&page=1&page_size=1');
    expect(british.body.items[0].id).toBe('voice_flite.awb');
  });

  it('answers random texts in the voice language, English for a language without texts', async () => {
    const caribbean = await c.get('/api/random/text?lang=en-029');
    expect(caribbean.status).toBe(200);
    expect(caribbean.body.previewText).not.toMatch(CJK);
    const hk = await c.get('/api/random/text?lang=zh-HK');
    expect(hk.body.previewText).toMatch(CJK);
    for (const lang of ['smj', 'tlh', 'xex']) {
      const res = await c.get(`/api/random/text?lang=${lang}`);
      expect(res.status, lang).toBe(200);
      expect(res.body.previewText, lang).not.toMatch(CJK);
      expect(res.body.previewText.length).toBeGreaterThan(10);
    }
  });

  it('serves the console but never its source maps', async () => {
    expect((await fetch(`${t.url}/assets/index-abc.js`)).status).toBe(200);
    const map = await fetch(`${t.url}/assets/index-abc.js.map`);
    expect(map.status).not.toBe(200);
    expect(await map.text()).not.toContain('secret.ts');
  });
});
