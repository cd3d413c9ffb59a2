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
    const cmd = curlExample('http://127.0.0.1:8080', 'pvx_abc');
    expect(cmd).toContain('http://127.0.0.1:8080/v1/audio/speech');
    expect(cmd).toContain('Authorization: Bearer pvx_abc');
  });
});
