import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref, stripLeadingTitle } from './markdown';

describe('parseMarkdown', () => {
  it('reads headings, paragraphs, lists, rules, quotes and code', () => {
    const blocks = parseMarkdown(
      [
        '# Title',
        '',
        'First line',
        'continues.',
        '',
        '- one',
        '- two',
        '',
        '1. a',
        '2. b',
        '',
        '---',
        '> quoted',
        '',
        '```',
        'x = 1',
        '```',
      ].join('\n'),
    );
    expect(blocks.map((b) => b.type)).toEqual(['heading', 'paragraph', 'list', 'list', 'rule', 'quote', 'code']);
    expect(blocks[1]).toEqual({ type: 'paragraph', children: [{ type: 'text', value: 'First line continues.' }] });
    expect(blocks[2]).toMatchObject({ ordered: false, items: [[{ value: 'one' }], [{ value: 'two' }]] });
    expect(blocks[3]).toMatchObject({ ordered: true, start: 1 });
    expect(blocks[6]).toEqual({ type: 'code', lang: '', value: 'x = 1' });
  });

  it('reads a table', () => {
    const [table] = parseMarkdown('| a | b |\n| --- | --- |\n| 1 | 2 |');
    expect(table).toMatchObject({
      type: 'table',
      header: [[{ value: 'a' }], [{ value: 'b' }]],
      rows: [[[{ value: '1' }], [{ value: '2' }]]],
    });
  });

  it('ends a paragraph where a list starts', () => {
    expect(parseMarkdown('Intro\n- item').map((b) => b.type)).toEqual(['paragraph', 'list']);
  });
});

describe('parseInline', () => {
  it('reads strong, emphasis, code and links', () => {
    expect(parseInline('a **b** *c* `d` [e](https://x.test)')).toEqual([
      { type: 'text', value: 'a ' },
      { type: 'strong', children: [{ type: 'text', value: 'b' }] },
      { type: 'text', value: ' ' },
      { type: 'em', children: [{ type: 'text', value: 'c' }] },
      { type: 'text', value: ' ' },
      { type: 'code', value: 'd' },
      { type: 'text', value: ' ' },
      { type: 'link', href: 'https://x.test', children: [{ type: 'text', value: 'e' }] },
    ]);
  });

  it('leaves underscores inside words alone', () => {
    expect(parseInline('snake_case_name')).toEqual([{ type: 'text', value: 'snake_case_name' }]);
  });

  it('drops dangerous links but keeps their text', () => {
    expect(parseInline('[click](javascript:alert(1))')).not.toContainEqual(expect.objectContaining({ type: 'link' }));
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,x')).toBeNull();
    expect(safeHref('//evil.test')).toBeNull();
    expect(safeHref('/#/privacy')).toBe('/#/privacy');
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
  });
});

describe('stripLeadingTitle', () => {
  it('drops a first heading that repeats the title', () => {
    expect(stripLeadingTitle('# Terms of Service\n\nBody', 'Terms of Service')).toBe('Body');
    expect(stripLeadingTitle('# Other\n\nBody', 'Terms of Service')).toBe('# Other\n\nBody');
  });
});
