import type { ReactNode } from 'react';
import { AppShell, Badge, Burger, Button, Container, Group, NavLink, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconArrowLeft, IconLock } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { NavLink as RouterLink, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { FactorStatus } from '@polyvox/contracts';
import { LanguageMenu } from '../layout/LanguageMenu';
import { Logo } from '../layout/Logo';
import { adminApi, STATUS_KEY } from './api';
import type { AdminPage } from './routes';

/** The console's frame: header (role, language, lock), a side bar with one entry per page the role may open. */
export function AdminLayout({ status, pages, children }: { status: FactorStatus; pages: AdminPage[]; children: ReactNode }) {
  const { t } = useTranslation('admin');
  const [opened, { toggle, close }] = useDisclosure(false);
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const lock = async () => {
    await adminApi.leave();
    await queryClient.invalidateQueries({ queryKey: STATUS_KEY });
  };
  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 240, breakpoint: 'md', collapsed: { mobile: !opened } }} padding={0}>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="md"
              size="sm"
              aria-label={t('toggleNav')}
              aria-expanded={opened}
              data-testid="admin-burger"
            />
            <Logo />
            <Text fw={600} visibleFrom="sm">
              {t('title')}
            </Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Badge variant="light" color="violet" data-testid="admin-role">
              {t(`role.${status.role}`)}
            </Badge>
            <LanguageMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar>
        <nav aria-label={t('title')} style={{ height: '100%' }}>
          <Stack gap={4} p="sm" h="100%">
            {pages.map((p) => {
              const to = p.path ? `/admin/${p.path}` : '/admin';
              const Icon = p.icon;
              return (
                <NavLink
                  key={p.path}
                  component={RouterLink}
                  to={to}
                  end={p.path === ''}
                  label={t(`nav.${p.label}`)}
                  leftSection={<Icon size={18} stroke={1.6} />}
                  active={pathname === to}
                  onClick={close}
                  variant="light"
                  color="violet"
                  style={{ borderRadius: 'var(--mantine-radius-md)' }}
                  data-testid={`admin-nav-${p.label}`}
                />
              );
            })}
            <Stack gap={4} mt="auto">
              <Button variant="subtle" leftSection={<IconLock size={16} />} onClick={() => void lock()} data-testid="admin-lock">
                {t('lock')}
              </Button>
              <Button component={RouterLink} to="/app" variant="subtle" leftSection={<IconArrowLeft size={16} />}>
                {t('backToApp')}
              </Button>
            </Stack>
          </Stack>
        </nav>
      </AppShell.Navbar>
      <AppShell.Main bg="var(--mantine-color-gray-0)">
        <Container size="xl" py="xl">
          {children}
        </Container>
      </AppShell.Main>
    </AppShell>
  );
}
