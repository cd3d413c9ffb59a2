import { describe, expect, it } from 'vitest';
import { CLIENT_VERSION } from './version';

describe('client version', () => {
  it('is the release the seed numbers v1.1.4, sent as cv', () => {
    expect(CLIENT_VERSION).toBe('v1.1.4');
  });
});
