import { List, Paper, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader';
import { formatDate } from '../../lib/format';
import { useLocaleChoice } from '../../i18n/hooks';
import { adminApi, STATUS_KEY } from '../api';

/** The console's first page: the operator's role, what it may do, and until when the session stays open. */
export default function HomePage() {
  const { t } = useTranslation('admin');
  const { ui } = useLocaleChoice();
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: adminApi.status });
  if (!status.data) return null;
  return (
    <>
      <PageHeader title={t('home.title')} description={t('home.description')} />
      <Paper withBorder p="lg" radius="md">
        <Text mb="sm" data-testid="admin-until">
          {status.data.email} · {t(`role.${status.data.role}`)} ·{' '}
          {t('factor.until', { time: formatDate(status.data.expires_at, ui) ?? '' })}
        </Text>
        <Title order={2} size="h5" mb="xs">
          {t('home.permissions')}
        </Title>
        <List data-testid="admin-permissions">
          {status.data.permissions.map((p) => (
            <List.Item key={p} data-permission={p}>
              {t(`home.permission.${p}`)}
            </List.Item>
          ))}
        </List>
      </Paper>
    </>
  );
}
