import { describe, expect, it } from 'vitest';
import { formatMessage } from '@polyvox/contracts';
import { coefficientFor, type CreditsConfig } from '../../src/credits/credits-config.js';
import { label } from '../../src/stats/metrics.js';
import { eventLabels } from '../../src/stats/events.js';

/** Names every plain object answers through its prototype. */
const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

const config: CreditsConfig = {
  anonymous_trial: 0,
  free_plan_grant: 0,
  hold_ttl_seconds: 60,
  model_coefficients: { default: 1, espeak: 0.5 },
  coefficient_by_engine: { flite: 0.25 },
  activation_fees: { text_to_voice: 1, clone: 1 },
};

describe('lookups keyed by user input ignore the prototype', () => {
  it('prices a prototype name as the default model of an unknown engine', () => {
    expect(coefficientFor(config, 'espeak', 'espeak')).toBe(0.5);
    expect(coefficientFor(config, 'x', 'flite')).toBe(0.25);
    for (const key of PROTO_KEYS) {
      expect(coefficientFor(config, key, key), key).toBe(1);
      expect(coefficientFor(config, key, 'flite'), key).toBe(0.25);
    }
  });

  it('leaves a prototype placeholder in a message as written', () => {
    expect(formatMessage('a {field} b', { field: 'x' })).toBe('a x b');
    for (const key of PROTO_KEYS) expect(formatMessage(`{${key}}`, {}), key).toBe(`{${key}}`);
  });
});

describe('metrics labels', () => {
  it('escapes backslash, quote and line feed, and keeps carriage returns off the line', () => {
    expect(label('a\\b"c\nd\re')).toBe('a\\\\b\\"c\\nd\ufffde');
    expect(label('/stats/api/:t/:e')).toBe('/stats/api/:t/:e');
  });

  it('counts unknown client events, prototype names included, as other', () => {
    expect(eventLabels('page', 'view', 'ios')).toEqual({ type: 'page', event: 'view', os: 'ios' });
    for (const key of [...PROTO_KEYS, 'x'.repeat(64), 'a\rb']) {
      expect(eventLabels(key, key, key), key).toEqual({ type: 'other', event: 'other', os: 'other' });
    }
  });
});
