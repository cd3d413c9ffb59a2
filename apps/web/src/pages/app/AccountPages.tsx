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

/**
 * The balance, which already reflects every charge. The line-by-line records are not served yet, so
 * the page says they are coming rather than showing empty figures that would claim nothing was used.
 */
export function UsagePage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account } = useAccount();
  return (
    <Stack data-testid="usage-page">
      <PageHeader title={t('usage.title')} description={t('usage.description')} />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Paper withBorder radius="md" p="lg">
          <Text size="sm" c="dimmed">
            {t('usage.balance')}
          </Text>
          <Text fz={24} fw={700} data-testid="usage-balance">
            {account ? formatNumber(account.vip.credits, ui) : t('common.none')}
          </Text>
        </Paper>
      </SimpleGrid>
      <EmptyTable
        columns={[t('usage.colTime'), t('usage.colType'), t('usage.colAmount'), t('usage.colBalance'), t('usage.colCharacters')]}
        title={t('usage.recordsComingTitle')}
        body={t('usage.recordsComingBody')}
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
