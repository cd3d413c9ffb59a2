import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSensitiveWords, normalizeForMatch } from '../../src/platform/sensitive-words.js';

const LIST = fileURLToPath(new URL('../../config/sensitive-words.txt', import.meta.url));

describe('normalizeForMatch', () => {
  it.each([
    ['FuCk', 'fuck'],
    ['f u c k', 'fuck'],
    ['f.u-c_k!', 'fuck'],
    ['ｆｕｃｋ', 'fuck'], // full-width letters
    ['Ｆ　Ｕ　Ｃ　Ｋ', 'fuck'], // ideographic spaces
    ['f\u200bu\u200cc\u200dk\u2060', 'fuck'], // zero-width space, non-joiner, joiner, word joiner
    ['f\u00adu\ufeffck', 'fuck'], // soft hyphen, byte-order mark
    ['f\tu\nc\u00a0k', 'fuck'],
    ['傻 逼', '傻逼'],
    ['管・理・員', '管理員'],
    ['幹！你？娘。', '幹你娘'],
    ['♥操♥你♥媽♥', '操你媽'],
    ['小明 Ming', '小明ming'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeForMatch(input)).toBe(expected);
  });
});

describe('the sensitive-word list', () => {
  const words = loadSensitiveWords(LIST);

  it.each([
    'fuck',
    'MotherFucker',
    'a.s.s.h.o.l.e',
    'Heil  Hitler',
    'kill-yourself',
    'POLYVOX_STAFF',
    'ｂｉｔｃｈ',
    's\u200bl\u200bu\u200bt',
    '傻逼',
    '傻 逼',
    '操你妈',
    '妈的',
    '我是管理员',
    '官方 客服',
    '傻屄',
    '幹你娘',
    '操你媽',
    '媽的',
    '賤人',
    '管理員',
  ])('finds %j', (name) => {
    expect(words.find(name)).not.toBeNull();
  });

  it.each(['Ming', '小明', 'English', '简体中文', '繁體中文', 'Polyvox fan', 'official fan', 'common impersonation', '#', ''])(
    'lets %j pass',
    (name) => {
      expect(words.find(name)).toBeNull();
    },
  );

  it('reports the listed word it found', () => {
    expect(words.find('hello F.U.C.K world')).toBe('fuck');
    expect(words.find('傻  逼')).toBe('傻逼');
  });

  it('reads a list with comments, blank lines, CRLF and punctuation-only lines', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-words-'));
    const file = path.join(dir, 'words.txt');
    fs.writeFileSync(file, '# comment words\r\n\r\n  Bad Word  \r\n!!!\r\n-\r\n坏 词\r\n');
    try {
      const list = loadSensitiveWords(file);
      expect(list.find('a b-a-d w o r d here')).toBe('badword');
      expect(list.find('坏词')).toBe('坏词');
      // A line that normalizes to nothing must not match every name; comments are not words.
      expect(list.find('harmless')).toBeNull();
      expect(list.find('comment words')).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
