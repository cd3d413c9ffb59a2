import { useMemo, useState } from 'react';
import { Badge, Button, Group, Paper, NativeSelect, SimpleGrid, Skeleton, Stack, Table, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RECORD_TYPES, type ApiKey, type CreditRecord } from '../../../api/economy';
import { useAccount } from '../../../auth/hooks';
import { EmptyTable } from '../../../components/EmptyTable';
import { WideTable } from '../../../components/WideTable';
import { LoadError } from '../../../components/LoadError';
import { Pager } from '../../../components/Pager';
import { PageHeader } from '../../../components/PageHeader';
import { LazyCreditsChart } from '../../../economy/LazyCreditsChart';
import { useApiKeys, useCurrentStats, useRecords } from '../../../economy/queries';
import { EMPTY_FILTERS, formatDateTime, pageCount, recordQuery, type UsageFilterState } from '../../../economy/usage';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';

const PAGE_SIZE = 20;
const TYPE_COLOR: Record<string, string> = {
  purchase: 'teal',
  grant: 'teal',
  refund: 'orange',
  api: 'blue',
  tts: 'violet',
  preview: 'grape',
  text_to_voice: 'indigo',
  clone: 'pink',
};

export function useRecordTypeLabel(): (type: string) => string {
  const { t } = useTranslation();
  return (type) =>
    (RECORD_TYPES as readonly string[]).includes(type) ? t(`usage.types.${type as (typeof RECORD_TYPES)[number]}`) : type;
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Paper withBorder radius="md" p="lg">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={24} fw={700} data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}

function RecordRow({ record, keys }: { record: CreditRecord; keys: Map<string, ApiKey> }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const typeLabel = useRecordTypeLabel();
  const key = record.api_key_id ? keys.get(record.api_key_id) : undefined;
  const keyText = record.api_key_id ? (key ? `${key.name} (${key.prefix})` : t('usage.deletedKey')) : t('common.none');
  return (
    <Table.Tr data-testid="record-row" data-type={record.type} data-amount={record.amount}>
      <Table.Td>{formatDateTime(record.created_at, ui)}</Table.Td>
      <Table.Td>
        <Badge variant="light" color={TYPE_COLOR[record.type] ?? 'gray'} data-testid="record-type">
          {typeLabel(record.type)}
        </Badge>
        {record.reason ? (
          <Text size="xs" c="dimmed" mt={4} data-testid="record-reason">
            {record.reason}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td c={record.amount >= 0 ? 'teal.9' : undefined} fw={600} data-testid="record-amount">
        {record.amount > 0 ? '+' : ''}
        {formatNumber(record.amount, ui)}
      </Table.Td>
      <Table.Td>{formatNumber(record.balance_after, ui)}</Table.Td>
      <Table.Td>{record.characters != null ? formatNumber(record.characters, ui) : t('common.none')}</Table.Td>
      <Table.Td>{keyText}</Table.Td>
    </Table.Tr>
  );
}

/** Balance and today's figures, credits per day, and every record, filtered and a page at a time. */
export function UsagePage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account } = useAccount();
  const typeLabel = useRecordTypeLabel();
  const stats = useCurrentStats();
  const keysQuery = useApiKeys();
  const [filters, setFilters] = useState<UsageFilterState>(EMPTY_FILTERS);
  const [page, setPage] = useState(1);
  const query = useMemo(() => recordQuery(filters), [filters]);
  const records = useRecords(page, PAGE_SIZE, query);
  const keys = useMemo(() => new Map((keysQuery.data?.items ?? []).map((k) => [k.id, k])), [keysQuery.data]);
  const filtered = filters !== EMPTY_FILTERS;

  const change = (patch: Partial<UsageFilterState>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  };

  const columns = [
    t('usage.colTime'),
    t('usage.colType'),
    t('usage.colAmount'),
    t('usage.colBalance'),
    t('usage.colCharacters'),
    t('usage.colKey'),
  ];
  const items = records.data?.items ?? [];
  const total = records.data?.total ?? 0;
  const figure = (n: number | undefined) => (n === undefined ? t('common.none') : formatNumber(n, ui));

  return (
    <Stack data-testid="usage-page">
      <PageHeader title={t('usage.title')} description={t('usage.description')} />
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Figure label={t('usage.balance')} value={figure(account?.vip.credits)} testId="usage-balance" />
        <Figure label={t('usage.creditsToday')} value={figure(stats.data?.credits_today)} testId="usage-credits-today" />
        <Figure label={t('usage.callsToday')} value={figure(stats.data?.calls_today)} testId="usage-calls-today" />
        <Figure label={t('usage.callsTotal')} value={figure(stats.data?.calls_total)} testId="usage-calls-total" />
      </SimpleGrid>
      <LazyCreditsChart />
      <Group align="flex-end" gap="sm" wrap="wrap" data-testid="usage-filters">
        <NativeSelect
          label={t('usage.filterType')}
          data={[
            { value: '', label: t('usage.allTypes') },
            ...RECORD_TYPES.map((type) => ({ value: type, label: typeLabel(type) })),
          ]}
          value={filters.type ?? ''}
          onChange={(e) => change({ type: e.currentTarget.value || null })}
          w={220}
          data-testid="filter-type"
        />
        <TextInput
          type="date"
          label={t('usage.from')}
          value={filters.from}
          onChange={(e) => change({ from: e.currentTarget.value })}
          w={170}
          data-testid="filter-from"
        />
        <TextInput
          type="date"
          label={t('usage.to')}
          value={filters.to}
          onChange={(e) => change({ to: e.currentTarget.value })}
          w={170}
          data-testid="filter-to"
        />
        <NativeSelect
          label={t('usage.filterKey')}
          data={[
            { value: '', label: t('usage.allKeys') },
            ...(keysQuery.data?.items ?? []).map((k) => ({ value: k.id, label: `${k.name} (${k.prefix})` })),
          ]}
          value={filters.apiKey ?? ''}
          onChange={(e) => change({ apiKey: e.currentTarget.value || null })}
          w={240}
          data-testid="filter-key"
        />
        {filtered && (
          <Button
            variant="subtle"
            onClick={() => {
              setFilters(EMPTY_FILTERS);
              setPage(1);
            }}
            data-testid="filter-clear"
          >
            {t('usage.clearFilters')}
          </Button>
        )}
      </Group>
      {records.isPending ? (
        <Skeleton h={240} radius="md" />
      ) : records.isError && !records.data ? (
        <LoadError error={records.error} onRetry={() => void records.refetch()} retrying={records.isFetching} what="records" />
      ) : items.length === 0 ? (
        <EmptyTable
          columns={columns}
          title={filtered ? t('usage.noMatchTitle') : t('usage.emptyTitle')}
          body={filtered ? t('usage.noMatchBody') : t('usage.emptyBody')}
        />
      ) : (
        <Paper withBorder radius="md" style={{ opacity: records.isPlaceholderData ? 0.6 : 1 }}>
          <WideTable minWidth={720}>
            <Table striped highlightOnHover data-testid="records-table" data-total={total}>
              <Table.Thead>
                <Table.Tr>
                  {columns.map((c) => (
                    <Table.Th key={c}>{c}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((record) => (
                  <RecordRow key={record.id} record={record} keys={keys} />
                ))}
              </Table.Tbody>
            </Table>
          </WideTable>
        </Paper>
      )}
      {total > PAGE_SIZE && (
        <Group justify="flex-end">
          <Pager total={pageCount(total, PAGE_SIZE)} value={page} onChange={setPage} data-testid="records-pagination" />
        </Group>
      )}
    </Stack>
  );
}
