import { lazy, Suspense, useState } from 'react';
import { AppShell } from '@mantine/core';
import { Outlet } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Banners } from './Banners';
import { Footer } from './Footer';
import { Header } from './Header';
import { useNavMenu } from './useNavMenu';

// The phone menu's drawer (and the modal code under it) loads the first time it is opened.
const NavDrawer = lazy(async () => ({ default: (await import('./NavDrawer')).NavDrawer }));

/** Home, pricing, documents and not-found: the header menu and a footer, no side bar. */
export function PublicLayout() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useNavMenu();
  const [used, setUsed] = useState(false);
  if (opened && !used) setUsed(true);
  return (
    <AppShell header={{ height: 60 }} padding={0}>
      <AppShell.Header>
        <Header navOpened={opened} onToggleNav={toggle} burgerLabel={t('nav.toggle')} />
      </AppShell.Header>
      {used && (
        <Suspense fallback={null}>
          <NavDrawer opened={opened} onClose={close} />
        </Suspense>
      )}
      <AppShell.Main>
        <Banners />
        <Outlet />
        <Footer />
      </AppShell.Main>
    </AppShell>
  );
}
