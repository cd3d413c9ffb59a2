import { describe, expect, it } from 'vitest';
import { en } from './en';
import { zhCN } from './zh-CN';
import { zhTW } from './zh-TW';

type Tree = { readonly [key: string]: string | Tree };

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of leaves(value, path)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}|<(\w+)>/g)].map((m) => m[1] ?? m[2]).sort();

const source = leaves(en);

describe.each([
  ['zh-CN', zhCN],
  ['zh-TW', zhTW],
] as const)('%s translation', (_name, messages) => {
  const target = leaves(messages);

  it('has exactly the English keys', () => {
    expect([...target.keys()].sort()).toEqual([...source.keys()].sort());
  });

  it('has no empty strings and keeps every {{placeholder}} and <tag>', () => {
    for (const [key, text] of source) {
      const translated = target.get(key) ?? '';
      expect(translated.trim(), key).not.toBe('');
      expect(placeholders(translated), key).toEqual(placeholders(text));
    }
  });
});

it('zh-CN and zh-TW are different translations', () => {
  const cn = leaves(zhCN);
  const tw = leaves(zhTW);
  const differing = [...cn.keys()].filter((k) => cn.get(k) !== tw.get(k));
  expect(differing.length).toBeGreaterThan(cn.size / 2);
});
