import { NavLink, ScrollArea, Stack, Text } from '@mantine/core';
import { NavLink as RouterLink, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { NAV, SIDEBAR, type NavKey } from './nav';

/** The console's side bar: dashboard, then the create / library / account groups. */
export function ConsoleNav({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();

  const link = (key: NavKey) => {
    const item = NAV[key];
    const Icon = item.icon;
    return (
      <NavLink
        key={key}
        component={RouterLink}
        to={item.path}
        label={t(`nav.${key}`)}
        leftSection={<Icon size={18} stroke={1.6} />}
        active={pathname === item.path || pathname.startsWith(`${item.path}/`)}
        onClick={onNavigate}
        variant="light"
        color="violet"
        style={{ borderRadius: 'var(--mantine-radius-md)' }}
        data-testid={item.testId}
      />
    );
  };

  return (
    <ScrollArea type="scroll" h="100%">
      <Stack gap={4} p="sm">
        {link('dashboard')}
        {SIDEBAR.map(({ section, items }) => (
          <Stack gap={2} key={section} mt="sm">
            <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pb={4}>
              {t(`nav.${section}`)}
            </Text>
            {items.map(link)}
          </Stack>
        ))}
      </Stack>
    </ScrollArea>
  );
}
