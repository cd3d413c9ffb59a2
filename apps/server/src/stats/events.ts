import { DEVICE_OS } from '@polyvox/contracts';

/**
 * The client events /metrics counts. Anyone may post an event, so every label value comes from these lists and
 * anything else is counted under `other`: the number of series stays fixed however many names are posted.
 */
export const EVENT_TYPES = new Set(['app', 'page', 'web', 'voice', 'tts', 'account', 'api', 'player']);
export const EVENT_NAMES = new Set([
  'open',
  'close',
  'view',
  'click',
  'play',
  'pause',
  'download',
  'share',
  'install',
  'sign_in',
  'sign_up',
  'sign_out',
  'synthesize',
  'error',
]);
const OS_NAMES = new Set<string>(DEVICE_OS);

export const OTHER = 'other';

const known = (set: Set<string>, value: string) => (set.has(value) ? value : OTHER);

export function eventLabels(type: string, event: string, os: string): { type: string; event: string; os: string } {
  return { type: known(EVENT_TYPES, type), event: known(EVENT_NAMES, event), os: known(OS_NAMES, os) };
}
