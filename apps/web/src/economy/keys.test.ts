import { describe, expect, it } from 'vitest';
import { cleanName, curlExample, parseLimit } from './keys';

describe('parseLimit', () => {
  it('reads empty as no limit and digits as credits', () => {
    expect(parseLimit('')).toBeNull();
    expect(parseLimit('   ')).toBeNull();
    expect(parseLimit('5000')).toBe(5000);
    expect(parseLimit('1,000,000')).toBe(1_000_000);
    expect(parseLimit('0')).toBe(0);
    expect(parseLimit(250)).toBe(250);
  });

  it('refuses negatives, fractions, words and numbers past exact integers', () => {
    for (const bad of ['-5', '1.5', 'abc', '1e6', '99999999999999999999', '0x10']) expect(parseLimit(bad), bad).toBe('invalid');
    expect(parseLimit(-1)).toBe('invalid');
    expect(parseLimit(1.5)).toBe('invalid');
    expect(parseLimit(Number.NaN)).toBe('invalid');
  });
});

describe('cleanName', () => {
  it('trims and refuses an empty name', () => {
    expect(cleanName('  prod  ')).toBe('prod');
    expect(cleanName(' \n ')).toBeNull();
  });
});

describe('curlExample', () => {
  it('calls the OpenAI-compatible route with the key as a bearer token', () => {
    const cmd = curlExample('http://127.0.0.1:8080', 'pvx_abc', { voice: 'voice_x', text: 'Hi', lang: 'en' });
    expect(cmd).toContain('http://127.0.0.1:8080/v1/audio/speech');
    expect(cmd).toContain('Authorization: Bearer pvx_abc');
  });

  it('names a voice of the reader’s language and asks for errors in it', () => {
    const cmd = curlExample('https://x.test', 'YOUR_API_KEY', { voice: 'voice_espeak.cmn', text: '你好', lang: 'zh-CN' });
    expect(cmd).toContain('-H "Accept-Language: zh-CN"');
    expect(cmd).toContain(`-d '{"model":"tts-1","input":"你好","voice":"voice_espeak.cmn"}'`);
    expect(cmd).not.toContain('alloy');
  });

  it('keeps a quote in the text inside the shell’s single quotes', () => {
    const cmd = curlExample('https://x.test', 'k', { voice: 'v', text: "It's", lang: 'en' });
    expect(cmd).toContain(`"input":"It'\\''s"`);
  });
});
