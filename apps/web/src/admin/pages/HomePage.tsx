import { Group, List, Paper, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader';
import { formatDate } from '../../lib/format';
import { useLocaleChoice } from '../../i18n/hooks';
import { adminApi, STATUS_KEY } from '../api';
import { PasskeyButton } from '../SecondFactor';

/**
 * The console's first page: the operator's role, what it may do, until when the session stays open, and its second
 * factors (another passkey may be added here).
 */
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
      <Paper withBorder p="lg" radius="md" mt="md">
        <Title order={2} size="h5" mb="xs">
          {t('factor.yourFactors')}
        </Title>
        <Group justify="space-between" wrap="wrap">
          <Text data-testid="admin-factors" data-passkeys={status.data.passkeys}>
            {t('factor.factorSummary', {
              totp: status.data.totp ? t('factor.yes') : t('factor.no'),
              passkeys: status.data.passkeys,
            })}
          </Text>
          <PasskeyButton mode="add" />
        </Group>
      </Paper>
    </>
  );
}
