import { describe, expect, it } from 'vitest';
import { canonicalEmail, isEmail } from '../src/limits.js';

describe('isEmail: one mailbox, the same rule for console and server', () => {
  it.each([
    'victim@example.com,x.y',
    'victim@example.com;x.y',
    'victim@example.com>x.y',
    '<victim@example.com>',
    '"victim"@example.com',
    'Victim <victim@example.com>',
    'victim@example.com other@example.com',
    'victim@[127.0.0.1]',
    'victim@example',
    'victim@example.c',
    'victim@-example.com',
    'victim@example-.com',
    'vic..tim@example.com',
    'vïctim@example.com',
    `${'a'.repeat(65)}@example.com`,
    `a@${'b'.repeat(64)}.com`,
    `a@${'b.'.repeat(126)}com`,
  ])('refuses %j', (value) => {
    expect(isEmail(value)).toBe(false);
  });

  it.each([
    'someone@example.com',
    'first.last+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'a_b-c@ex-ample.com',
    `${'a'.repeat(64)}@example.com`,
    `a@${'b'.repeat(63)}.com`,
  ])('accepts %j', (value) => {
    expect(isEmail(value)).toBe(true);
  });

  it('gives one spelling for cooldowns, limits and lookups', () => {
    expect(canonicalEmail('  Some.One@Example.COM\t')).toBe('some.one@example.com');
  });
});
