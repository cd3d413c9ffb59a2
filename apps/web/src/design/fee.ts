import type { TtsConfig } from '../speech/types';
import type { PreviewType } from './types';

/** The usage type each activation is charged under, as the credits configuration names it. */
export const FEE_USAGE: Record<'prompt' | 'clone', 'text_to_voice' | 'clone'> = { prompt: 'text_to_voice', clone: 'clone' };

type FeeTable = Partial<Record<'text_to_voice' | 'clone', number>>;

function feeIn(table: unknown, usage: 'text_to_voice' | 'clone'): number | null {
  if (!table || typeof table !== 'object' || !Object.hasOwn(table, usage)) return null;
  const value = (table as FeeTable)[usage];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * What activating a voice of this type costs, as the server states it: on the preview itself
 * (`activation_credits`), else in `/tts/config` (`activation_fees`, keyed by usage type). Null when
 * the server has not said: the dialog then says the fee is charged without naming it.
 */
export function activationFee(
  type: PreviewType,
  preview: { activation_credits?: number | null } | undefined,
  config: TtsConfig | undefined,
): number | null {
  if (type === 'mix') return 0;
  const own = preview?.activation_credits;
  if (typeof own === 'number' && Number.isFinite(own) && own >= 0) return own;
  return feeIn(config?.activation_fees, FEE_USAGE[type]);
}
