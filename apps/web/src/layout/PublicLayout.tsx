import { AppShell, Drawer } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Outlet } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Banners } from './Banners';
import { Footer } from './Footer';
import { Header } from './Header';
import { HeaderNav } from './HeaderNav';

/** Home, pricing, documents and not-found: the header menu and a footer, no side bar. */
export function PublicLayout() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure(false);
  return (
    <AppShell header={{ height: 60 }} padding={0}>
      <AppShell.Header>
        <Header navOpened={opened} onToggleNav={toggle} burgerLabel={t('nav.toggle')} />
      </AppShell.Header>
      <Drawer opened={opened} onClose={close} size="xs" hiddenFrom="md" title="Polyvox">
        <HeaderNav vertical onNavigate={close} />
      </Drawer>
      <AppShell.Main>
        <Banners />
        <Outlet />
        <Footer />
      </AppShell.Main>
    </AppShell>
  );
}
