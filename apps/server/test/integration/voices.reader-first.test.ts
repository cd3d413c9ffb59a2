import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

interface VoicePage {
  items: { id: string; languages: string[] }[];
  total: number;
}

const chinese = (languages: string[], cantonese = false) =>
  languages.some((l) => (cantonese ? /^(zh|cmn|yue)(-|$)/i : /^(zh|cmn)(-|$)/i).test(l));
const english = (languages: string[]) => languages.some((l) => /^en(-|$)/i.test(l));

describe.each(DIALECTS)('the library lists the reader’s language first (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WARMUP: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const page = async (lang: string, query = '') => {
    const c = new Client(t.url, lang);
    await c.anonymous();
    const res = await c.get<VoicePage>(`/voice?source=official&page=1&page_size=100${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('puts the Chinese voices first for a Chinese reader and the English ones for an English reader, the same voices', async () => {
    const [zh, tw, en] = [await page('zh-CN'), await page('zh-TW'), await page('en')];
    for (const [list, cantonese] of [
      [zh, false],
      [tw, true],
    ] as const) {
      const count = list.items.filter((v) => chinese(v.languages, cantonese)).length;
      expect(count).toBeGreaterThan(0);
      const firstOther = list.items.findIndex((v) => !chinese(v.languages, cantonese));
      expect(firstOther === -1 ? list.items.length : firstOther).toBe(count);
    }
    expect(english(en.items[0]!.languages)).toBe(true);
    const enFirstOther = en.items.findIndex((v) => !english(v.languages));
    expect(en.items.slice(enFirstOther).some((v) => english(v.languages))).toBe(false);
    expect(zh.total).toBe(en.total);
  });

  it('keeps the filters: a language asked for is all that is listed', async () => {
    const onlyEnglish = await page('zh-CN', '&languages=en');
    expect(onlyEnglish.items.length).toBeGreaterThan(0);
    expect(onlyEnglish.items.every((v) => english(v.languages))).toBe(true);
  });
});
