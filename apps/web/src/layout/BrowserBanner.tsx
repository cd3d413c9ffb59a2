import { useState } from 'react';
import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { isChromiumBased, readBrowserHints } from '../lib/browser';

const DISMISS_KEY = 'polyvox.browser-warning-dismissed';
const supported = isChromiumBased(readBrowserHints());

function wasDismissed(): boolean {
  try {
    return sessionStorage.getItem(DISMISS_KEY) === '1';
  } catch {
    return false;
  }
}

/** Shown outside Chromium-based browsers, once per tab until dismissed. */
export function BrowserBanner() {
  const { t } = useTranslation();
  const [hidden, setHidden] = useState(() => supported || wasDismissed());
  if (hidden) return null;
  return (
    <Alert
      color="yellow"
      radius={0}
      icon={<IconAlertTriangle size={18} />}
      title={t('browser.title')}
      withCloseButton
      closeButtonLabel={t('browser.dismiss')}
      onClose={() => {
        try {
          sessionStorage.setItem(DISMISS_KEY, '1');
        } catch {
          // Dismissed for this render only.
        }
        setHidden(true);
      }}
      data-testid="browser-warning"
    >
      {t('browser.body')}
    </Alert>
  );
}
