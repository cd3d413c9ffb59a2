import type { ReactNode } from 'react';
import { Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Wraps a control whose feature has not shipped yet: disabled, with a "coming soon" hint. */
export function ComingSoon({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Tooltip label={t('common.comingSoon')} withArrow>
      <span style={{ display: 'inline-block' }}>{children}</span>
    </Tooltip>
  );
}
