import './mantine.css';
import '@mantine/notifications/styles.css';
import './styles.css';
import { lazy, StrictMode, Suspense, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router-dom';
import { i18nReady } from './i18n';
import { session } from './auth/session';
import { queryClient } from './lib/query-client';
import { NOTIFY_MS, notificationsWanted, subscribeNotificationsWanted } from './lib/notify';
import { router } from './router';
import { localizedTheme } from './theme';

// Start-up runs once, outside React: every request waits in the queue until it is done.
void session.start();
// Page views and errors go out on their own, never in the way of the page (a chunk of their own, loaded after it).
void import('./lib/stats-instance').then(({ stats, trackRouter, trackUncaughtErrors }) => {
  trackRouter(stats, router);
  trackUncaughtErrors(stats);
});

// Messages shown before it arrives wait in the notifications store; the first page does not need its code.
const Notifications = lazy(async () => ({ default: (await import('@mantine/notifications')).Notifications }));

/** The notifications' container, mounted from the first message on: a page that shows none never fetches it. */
function LazyNotifications() {
  const wanted = useSyncExternalStore(subscribeNotificationsWanted, notificationsWanted);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      {/*
        Bottom right: a toast never covers the header, a page title or its buttons. Above dialogs (200) but under the
        lists a person opens (popovers, 300): a toast never hides the option someone is about to pick.
      */}
      <Notifications position="bottom-right" autoClose={NOTIFY_MS} limit={4} zIndex={290} />
    </Suspense>
  );
}

/** Mantine with its own words (close buttons) in the console's language, changed with it. */
function LocalizedMantine({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const close = t('common.close');
  const theme = useMemo(() => localizedTheme(close), [close]);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light">
      {children}
    </MantineProvider>
  );
}

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

const app = createRoot(root);
void i18nReady.finally(() =>
  app.render(
    <StrictMode>
      <LocalizedMantine>
        <LazyNotifications />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </LocalizedMantine>
    </StrictMode>,
  ),
);
