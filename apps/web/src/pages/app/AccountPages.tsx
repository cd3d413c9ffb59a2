import { Button, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useAccount } from '../../auth/hooks';
import { ComingSoon } from '../../components/ComingSoon';
import { EmptyTable } from '../../components/EmptyTable';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { PricingContent } from '../PricingPage';

export function UsagePage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account } = useAccount();
  const stats = [
    { label: t('usage.balance'), value: account ? formatNumber(account.vip.credits, ui) : t('common.none') },
    { label: t('usage.today'), value: t('common.none') },
    { label: t('usage.callsToday'), value: t('common.none') },
  ];
  return (
    <Stack data-testid="usage-page">
      <PageHeader title={t('usage.title')} description={t('usage.description')} />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        {stats.map((s) => (
          <Paper key={s.label} withBorder radius="md" p="lg">
            <Text size="sm" c="dimmed">
              {s.label}
            </Text>
            <Text fz={24} fw={700}>
              {s.value}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      <EmptyTable
        columns={[t('usage.colTime'), t('usage.colType'), t('usage.colAmount'), t('usage.colBalance'), t('usage.colCharacters')]}
        title={t('usage.emptyTitle')}
        body={t('usage.emptyBody')}
      />
    </Stack>
  );
}

export function OrdersPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="orders-page">
      <PageHeader title={t('orders.title')} description={t('orders.description')} />
      <EmptyTable
        columns={[
          t('orders.colOrder'),
          t('orders.colProduct'),
          t('orders.colAmount'),
          t('orders.colStatus'),
          t('orders.colCreated'),
        ]}
        title={t('orders.emptyTitle')}
        body={t('orders.emptyBody')}
      />
    </Stack>
  );
}

export function ApiKeysPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="api-keys-page">
      <PageHeader
        title={t('apiKeys.title')}
        description={t('apiKeys.description')}
        actions={
          <ComingSoon>
            <Button disabled leftSection={<IconPlus size={16} />}>
              {t('apiKeys.create')}
            </Button>
          </ComingSoon>
        }
      />
      <EmptyTable
        columns={[
          t('apiKeys.colName'),
          t('apiKeys.colKey'),
          t('apiKeys.colLimit'),
          t('apiKeys.colUsed'),
          t('apiKeys.colCreated'),
          t('apiKeys.colLastUsed'),
        ]}
        title={t('apiKeys.emptyTitle')}
        body={t('apiKeys.emptyBody')}
      />
    </Stack>
  );
}

export function AppPricingPage() {
  return <PricingContent />;
}
