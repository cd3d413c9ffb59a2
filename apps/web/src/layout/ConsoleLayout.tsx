import { AppShell, Container } from '@mantine/core';
import { Outlet } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Banners } from './Banners';
import { ConsoleNav } from './ConsoleNav';
import { ConsoleFooter } from './Footer';
import { Header } from './Header';
import { useNavMenu } from './useNavMenu';

/** Everything under /app: header, side bar, and the page. */
export function ConsoleLayout() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useNavMenu();
  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 240, breakpoint: 'md', collapsed: { mobile: !opened } }} padding={0}>
      <AppShell.Header>
        <Header navOpened={opened} onToggleNav={toggle} burgerLabel={t('nav.toggle')} />
      </AppShell.Header>
      <AppShell.Navbar className="console-navbar" data-closed={opened ? undefined : true}>
        <ConsoleNav onNavigate={close} />
      </AppShell.Navbar>
      <AppShell.Main bg="var(--mantine-color-gray-0)">
        <Banners />
        <Container size="lg" py="xl">
          <Outlet />
        </Container>
        <ConsoleFooter />
      </AppShell.Main>
    </AppShell>
  );
}
