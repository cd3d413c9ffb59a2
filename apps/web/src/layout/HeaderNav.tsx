import { Button, Group, Stack } from '@mantine/core';
import { NavLink as RouterLink } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useAccount } from '../auth/hooks';
import { HEADER_NAV, NAV, PUBLIC_PATHS } from './nav';

/**
 * The header menu. Pricing and the audio check go to their public pages until the user is signed in. The audio
 * check shows in the bar from the lg width only (seven entries wrap in English below it); the phone menu, the
 * side bar and the footer carry it at every width.
 */
export function HeaderNav({ vertical = false, onNavigate }: { vertical?: boolean; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { signedIn } = useAccount();
  const links = HEADER_NAV.map((key) => {
    const item = NAV[key];
    const to = (!signedIn && PUBLIC_PATHS[key]) || item.path;
    return (
      <Button
        key={key}
        component={RouterLink}
        to={to}
        variant="subtle"
        color="gray"
        size="sm"
        justify={vertical ? 'flex-start' : 'center'}
        onClick={onNavigate}
        visibleFrom={!vertical && key === 'check' ? 'lg' : undefined}
        data-testid={`header-${item.testId}`}
      >
        {t(`nav.${key}`)}
      </Button>
    );
  });
  return vertical ? <Stack gap={4}>{links}</Stack> : <Group gap={2}>{links}</Group>;
}
