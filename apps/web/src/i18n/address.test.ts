/**
 * The console addresses the user as 你 in both Chinese scripts, never the formal 您: every console string
 * and every error message the server sends for display, so one screen never mixes the two.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_MESSAGES, REASON_MESSAGES } from '@polyvox/contracts';
import { designZhCN } from './design-zh-CN';
import { designZhTW } from './design-zh-TW';
import { economyZhCN } from './economy-zh-CN';
import { economyZhTW } from './economy-zh-TW';
import { speechZhCN } from './speech-zh-CN';
import { speechZhTW } from './speech-zh-TW';
import { zhCN } from './zh-CN';
import { zhTW } from './zh-TW';

function strings(tree: unknown, path = ''): Array<[string, string]> {
  if (typeof tree === 'string') return [[path, tree]];
  if (tree && typeof tree === 'object') return Object.entries(tree).flatMap(([k, v]) => strings(v, path ? `${path}.${k}` : k));
  return [];
}

describe.each([
  ['zh-CN', [zhCN, designZhCN, economyZhCN, speechZhCN]],
  ['zh-TW', [zhTW, designZhTW, economyZhTW, speechZhTW]],
] as const)('%s', (locale, trees) => {
  it('console strings say 你, never 您', () => {
    const all = trees.flatMap((t) => strings(t));
    expect(all.length).toBeGreaterThan(300);
    expect(all.filter(([, s]) => s.includes('您'))).toEqual([]);
  });

  it('error messages say 你, never 您', () => {
    const all = [...strings(ERROR_MESSAGES[locale]), ...[...REASON_MESSAGES].map(([k, v]) => [k, v[locale]] as [string, string])];
    expect(all.length).toBeGreaterThan(20);
    expect(all.filter(([, s]) => s.includes('您'))).toEqual([]);
  });
});
