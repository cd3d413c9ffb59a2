import { describe, expect, it } from 'vitest';
import { stripLeadingTitle } from './doc-text';

describe('stripLeadingTitle', () => {
  it('drops a first heading that repeats the title', () => {
    expect(stripLeadingTitle('# Terms of Service\n\nBody', 'Terms of Service')).toBe('Body');
    expect(stripLeadingTitle('# Other\n\nBody', 'Terms of Service')).toBe('# Other\n\nBody');
  });
});
