import { Badge } from '@mantine/core';
import { accountsEn } from './i18n/accounts-en';
import { accountsZhCN } from './i18n/accounts-zh-CN';
import { accountsZhTW } from './i18n/accounts-zh-TW';
import { useTexts } from './i18n/texts';

/** The accounts pages' texts in the three languages (carried by their chunk only). */
export const ACCOUNTS_TEXTS = { en: accountsEn, 'zh-CN': accountsZhCN, 'zh-TW': accountsZhTW };

/** An account's state: active or disabled. */
export function StatusBadge({ status }: { status: string }) {
  const texts = useTexts(ACCOUNTS_TEXTS);
  return (
    <Badge color={status === 'disabled' ? 'red' : 'teal'} variant="light" data-testid="account-status">
      {status === 'disabled' ? texts.disabled : texts.active}
    </Badge>
  );
}

/** A table that scrolls sideways on a phone is reachable by keyboard (axe: scrollable-region-focusable). */
export const SCROLL_PROPS = { viewportProps: { tabIndex: 0 } };
