import { describe, expect, it } from 'vitest';
import { lineAt, opensAsSsml, ssmlPlace } from './ssml';

describe('SSML errors in the console', () => {
  it('finds the line and column in the server message, in each language', () => {
    expect(ssmlPlace('Invalid value for text: unsupported SSML tag <voice> at line 2, column 9')).toEqual({ line: 2, column: 9 });
    expect(ssmlPlace('text 的值无效：不支持的 SSML 标签 <voice>（第 2 行第 9 列）')).toEqual({ line: 2, column: 9 });
    expect(ssmlPlace('text 的值無效：不支援的 SSML 標籤 <voice>（第 12 行第 3 欄）')).toEqual({ line: 12, column: 3 });
    expect(ssmlPlace('Invalid value for text: must contain words')).toBeNull();
  });

  it('gives the line and the offset of the place in the text', () => {
    const text = '<speak>\n  Hello <voice>x</voice>\n</speak>';
    const at = lineAt(text, { line: 2, column: 9 });
    expect(at.line).toBe('  Hello <voice>x</voice>');
    expect(text.slice(at.offset, at.offset + 7)).toBe('<voice>');
    // A place past the end stays in the text.
    expect(lineAt(text, { line: 9, column: 99 }).offset).toBe(text.length);
  });

  it('knows the text the server takes for SSML', () => {
    expect(opensAsSsml('  <speak>Hi</speak>')).toBe(true);
    expect(opensAsSsml('<?xml version="1.0"?><speak/>')).toBe(true);
    expect(opensAsSsml('A <speak> in prose')).toBe(false);
  });
});
