import { Button, Group, Stack } from '@mantine/core';
import { NavLink as RouterLink } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useAccount } from '../auth/hooks';
import { HEADER_NAV, NAV } from './nav';

/** The header menu. Pricing goes to the public page until the user is signed in. */
export function HeaderNav({ vertical = false, onNavigate }: { vertical?: boolean; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { signedIn } = useAccount();
  const links = HEADER_NAV.map((key) => {
    const item = NAV[key];
    const to = key === 'pricing' && !signedIn ? '/pricing' : item.path;
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
        data-testid={`header-${item.testId}`}
      >
        {t(`nav.${key}`)}
      </Button>
    );
  });
  return vertical ? <Stack gap={4}>{links}</Stack> : <Group gap={2}>{links}</Group>;
}
