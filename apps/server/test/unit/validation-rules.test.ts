import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorMessage } from '@polyvox/contracts';
import { ruleOf } from '../../src/http/error-handler.js';

/** The first issue zod reports for `value` against `schema`, as the error handler receives it. */
function issueOf(schema: z.ZodType, value: unknown) {
  const parsed = schema.safeParse(value);
  expect(parsed.success).toBe(false);
  return parsed.error!.issues[0]! as Parameters<typeof ruleOf>[0];
}

describe('VALIDATION_FAILED rules worded from schema constraints', () => {
  it.each<[string, z.ZodType, unknown, string, string, string]>([
    ['short string', z.string().min(3), 'ab', 'must be at least 3 characters long', '至少须有 3 个字符', '至少須有 3 個字元'],
    ['long string', z.string().max(5), 'abcdefg', 'must be at most 5 characters long', '最多 5 个字符', '最多 5 個字元'],
    ['small number', z.number().min(0.5), 0.1, 'must be at least 0.5', '须不小于 0.5', '須不小於 0.5'],
    ['big number', z.number().max(12), 13, 'must be at most 12', '须不大于 12', '須不大於 12'],
    ['exclusive', z.number().positive(), 0, 'must be greater than 0', '须大于 0', '須大於 0'],
    ['type', z.number(), 'x', 'must be of type number', '类型须为 number', '類型須為 number'],
    ['enum', z.enum(['mp3', 'wav']), 'ogg', 'must be one of: mp3, wav', '须为以下之一：mp3, wav', '須為以下之一：mp3, wav'],
    ['too many', z.array(z.number()).max(3), [1, 2, 3, 4], 'must have at most 3 items', '最多 3 项', '最多 3 項'],
    ['pattern', z.string().regex(/^a+$/), 'b', 'has an invalid format', '格式不正确', '格式不正確'],
    ['int', z.number().int(), 1.5, 'must be of type int', '类型须为 int', '類型須為 int'],
  ])('%s', (_name, schema, value, en, zhCN, zhTW) => {
    const rule = ruleOf(issueOf(schema, value));
    expect(rule).toBe(en);
    expect(errorMessage('VALIDATION_FAILED', 'en', { field: 'f', rule })).toBe(`Invalid value for f: ${en}`);
    expect(errorMessage('VALIDATION_FAILED', 'zh-CN', { field: 'f', rule })).toBe(`f 的值无效：${zhCN}`);
    expect(errorMessage('VALIDATION_FAILED', 'zh-TW', { field: 'f', rule })).toBe(`f 的值無效：${zhTW}`);
  });

  it("keeps a schema's own message that the catalogue translates, and any other English text stays as written", () => {
    const own = issueOf(z.string().min(1, 'must not be empty'), '');
    expect(ruleOf(own)).toBe('must not be empty');
    expect(errorMessage('VALIDATION_FAILED', 'zh-CN', { field: 'text', rule: ruleOf(own) })).toBe('text 的值无效：不能为空');
    expect(errorMessage('VALIDATION_FAILED', 'zh-CN', { field: 'x', rule: 'some other rule' })).toBe(
      'x 的值无效：some other rule',
    );
  });
});
