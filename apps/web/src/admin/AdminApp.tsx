import { Suspense, useMemo } from 'react';
import { useLocation } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import 'mantine-datatable/styles.css';
import { isApiError } from '../api/errors';
import { FullPageLoader } from '../components/FullPageLoader';
import { LoadError } from '../components/LoadError';
import { NotFoundPage } from '../pages/NotFoundPage';
import { adminApi, STATUS_KEY } from './api';
import { AdminLayout } from './AdminLayout';
import { addAdminMessages } from './i18n';
import { ADMIN_PAGES } from './routes';
import { SecondFactorPage } from './SecondFactor';

addAdminMessages();

/**
 * #/admin/…: the operator console, its own chunk. An account that holds no role is told so; an operator passes the
 * second factor (set up the first time) before any page opens; each page shows when the role holds its permission.
 */
export function AdminApp() {
  const { t } = useTranslation('admin');
  const { pathname } = useLocation();
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: adminApi.status, retry: false });
  const pages = useMemo(
    () => ADMIN_PAGES.filter((p) => p.permission === null || status.data?.permissions.includes(p.permission)),
    [status.data],
  );
  // The page is matched here, not by react-router's <Routes> (which would join the first page's shared chunk).
  const Page = pages.find((p) => p.path === (pathname.replace(/^\/admin\/?/, '').split('/')[0] ?? ''))?.component;
  if (status.isPending) return <FullPageLoader />;
  if (status.isError) {
    if (isApiError(status.error) && status.error.status === 403)
      return (
        <Center mih="100vh" p="md">
          <Paper withBorder p="xl" maw={480} data-testid="admin-not-operator">
            <Stack>
              <Title order={1} size="h3">
                {t('notOperator.title')}
              </Title>
              <Text>{t('notOperator.body')}</Text>
            </Stack>
          </Paper>
        </Center>
      );
    return (
      <Center mih="100vh" p="md">
        <LoadError error={status.error} onRetry={() => void status.refetch()} what="admin-status" />
      </Center>
    );
  }
  if (!status.data.elevated) return <SecondFactorPage status={status.data} />;
  return (
    <AdminLayout status={status.data} pages={pages}>
      <Suspense fallback={<FullPageLoader />}>{Page ? <Page /> : <NotFoundPage />}</Suspense>
    </AdminLayout>
  );
}
