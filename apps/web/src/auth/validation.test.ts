import { describe, expect, it } from 'vitest';
import { checkCode, checkEmail, chooseSignInRoute } from './validation';

describe('sign-in form checks', () => {
  it('asks for an email, then a well-formed one', () => {
    expect(checkEmail('')).toBe('EMAIL_REQUIRED');
    expect(checkEmail('   ')).toBe('EMAIL_REQUIRED');
    expect(checkEmail('nope')).toBe('EMAIL_FORMAT');
    expect(checkEmail('a@b')).toBe('EMAIL_FORMAT');
    expect(checkEmail('a b@c.com')).toBe('EMAIL_FORMAT');
    expect(checkEmail(' someone@example.com ')).toBeNull();
  });

  it("refuses a code of 3 characters or fewer (the seed's rule), leaves longer ones to the server", () => {
    expect(checkCode('')).toBe('required');
    expect(checkCode('   ')).toBe('required');
    expect(checkCode('1')).toBe('format');
    expect(checkCode('123')).toBe('format');
    expect(checkCode(' 123 ')).toBe('format');
    expect(checkCode('1234')).toBeNull();
    expect(checkCode('123456')).toBeNull();
  });

  it('registers an anonymous account under a new email, signs in otherwise', () => {
    expect(chooseSignInRoute({ anonymous: true }, false)).toBe('register');
    expect(chooseSignInRoute({ anonymous: true }, true)).toBe('signin');
    expect(chooseSignInRoute({ anonymous: false }, false)).toBe('signin');
    expect(chooseSignInRoute(undefined, false)).toBe('signin');
  });
});
